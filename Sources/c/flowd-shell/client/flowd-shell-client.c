#include <string.h>
#include <wayland-client.h>
#include "flowd-shell-client.h"
#include "flowd-shell-v1-client-protocol.h"

static struct wl_display *bound_display;
static struct flowd_shell_v1 *bound_shell;

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    (void)version;
    struct flowd_shell_v1 **shell = data;
    if (!strcmp(interface, flowd_shell_v1_interface.name) && !*shell) *shell = wl_registry_bind(registry, name, &flowd_shell_v1_interface, 1);
}

static void global_remove(void *data, struct wl_registry *registry, uint32_t name) {
    (void)data;
    (void)registry;
    (void)name;
}

static const struct wl_registry_listener registry_listener = {.global = global, .global_remove = global_remove};

int flowd_shell_claim(struct wl_display *display, struct wl_surface *surface, const char *token) {
    if (!display || !surface || !token || !*token) return -1;
    if (bound_display != display) {
        struct flowd_shell_v1 *shell = NULL;
        struct wl_registry *registry = wl_display_get_registry(display);
        wl_registry_add_listener(registry, &registry_listener, &shell);
        wl_display_roundtrip(display);
        wl_registry_destroy(registry);
        if (!shell) return -1;
        bound_display = display;
        bound_shell = shell;
    }
    flowd_shell_v1_claim(bound_shell, surface, token);
    wl_display_flush(display);
    return 0;
}
