#include <stdlib.h>
#include <string.h>
#include <time.h>
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

static int bind_shell(struct wl_display *display) {
    if (bound_display != display) {
        /* A queue of our own: a toolkit's events are not dispatched from inside this call. */
        struct flowd_shell_v1 *shell = NULL;
        struct wl_event_queue *queue = wl_display_create_queue(display);
        struct wl_display *wrapper = wl_proxy_create_wrapper(display);
        wl_proxy_set_queue((struct wl_proxy *)wrapper, queue);
        struct wl_registry *registry = wl_display_get_registry(wrapper);
        wl_registry_add_listener(registry, &registry_listener, &shell);
        wl_display_roundtrip_queue(display, queue);
        wl_registry_destroy(registry);
        wl_proxy_wrapper_destroy(wrapper);
        if (shell) wl_proxy_set_queue((struct wl_proxy *)shell, NULL);
        wl_event_queue_destroy(queue);
        if (!shell) return -1;
        bound_display = display;
        bound_shell = shell;
    }
    return 0;
}

int flowd_shell_available(struct wl_display *display) {
    return display && bind_shell(display) == 0;
}

int flowd_shell_claim(struct wl_display *display, struct wl_surface *surface, const char *token) {
    if (!display || !surface || !token || !*token || bind_shell(display) != 0) return -1;
    flowd_shell_v1_claim(bound_shell, surface, token);
    wl_display_flush(display);
    return 0;
}

int flowd_shell_wait_display(int timeout_ms) {
    const char *name = getenv("WAYLAND_DISPLAY");
    if (!name || !*name) return 0;
    for (int waited = 0;; waited += 100) {
        struct wl_display *display = wl_display_connect(NULL);
        if (display) {
            wl_display_disconnect(display);
            return 0;
        }
        if (waited >= timeout_ms) return -1;
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}
