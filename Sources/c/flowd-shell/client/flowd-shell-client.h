/* The client side of flowd-shell's claim (docs/shell.md, "What a toolkit host does"): a screen
 * host shows a flowd screen under flowd-shell by claiming its toplevel's wl_surface with the
 * screen's display_token (flowd_place.display_token) before the surface's first buffer. */
#ifndef FLOWD_SHELL_CLIENT_H
#define FLOWD_SHELL_CLIENT_H

#ifdef __cplusplus
extern "C" {
#endif

struct wl_display;
struct wl_surface;

/* Binds flowd_shell_v1 on `display` (once per display; a roundtrip the first time) and claims
 * `surface` with `token`. Returns 0, or -1 when the compositor is not flowd-shell (no
 * flowd_shell_v1 global) or `token` is empty. A claim the shell refuses (a secret that names no
 * screen, or another client's) ends the Wayland connection with a protocol error. Claim the same
 * surface again with the new token after each new Place of its screen. */
int flowd_shell_claim(struct wl_display *display, struct wl_surface *surface, const char *token);

/* 1 when the compositor on `display` is flowd-shell (it has flowd_shell_v1), else 0: a host then
 * serves one toplevel per screen, without chrome of its own. Binds it for flowd_shell_claim. */
int flowd_shell_available(struct wl_display *display);

#ifdef __cplusplus
}
#endif

#endif
