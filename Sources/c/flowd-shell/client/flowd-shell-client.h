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

/* Waits for the Wayland display WAYLAND_DISPLAY names, trying to connect every 100 ms for at most
 * `timeout_ms`: a host that flowd restarts while the shell itself restarts waits for the new shell
 * instead of failing in its toolkit's start (docs/shell.md, step 5). Returns 0 once a connection
 * succeeded (it is closed again: the toolkit makes its own), or at once when WAYLAND_DISPLAY is
 * unset; -1 when the time ran out. */
int flowd_shell_wait_display(int timeout_ms);

#ifdef __cplusplus
}
#endif

#endif
