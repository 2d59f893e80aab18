/* A test screen for flowd-shell: each screen it is given is one toplevel filled with a colour made
 * from the screen's id (colour_of, the same in shell_tests.py), claimed with the screen's
 * display_token. Spawned by flowd (one screen) or attached (--provide KIND...). A pixel of the
 * shell's screenshot then says which screen is drawn there.
 *
 * When the Wayland display is gone (the shell died) it exits with 75, so that flowd's restart
 * policy starts it again; at start it waits up to 30 s for the display to be there. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include <flowd/screen.h>
#include "flowd-shell-client.h"
#include "xdg-shell-client-protocol.h"

#define MAX_WINDOWS 64

struct window {
    uint64_t screen;
    struct wl_surface *surface;
    struct xdg_surface *xdg_surface;
    struct xdg_toplevel *toplevel;
    struct wl_buffer *buffer;
    int width, height;
    bool configured;
    bool held; /* COLOUR_SCREEN_HOLD_KIND: its first frame waits for SIGUSR1 */
};

/* COLOUR_SCREEN_HOLD_KIND=KIND: a screen of that kind draws its first frame only after SIGUSR1, so
 * a test sees what the shell shows while a new screen has not drawn yet. */
static volatile sig_atomic_t released;
static void release(int signal) {
    (void)signal;
    released = 1;
}

static struct wl_display *display;
static struct wl_compositor *compositor;
static struct wl_shm *shm;
static struct xdg_wm_base *wm_base;
static struct window windows[MAX_WINDOWS];
/* FLOWD_SHELL_FIGURES=MS (Tests/Shell/shell_figures.py): a visible screen at an even stack index taps
 * its first button (a push), one at an odd index goes back, MS after its Place; the tap's time goes
 * to standard error, for the time to the shell's first frame of the next screen. */
static bool figures;
static int tap_after_ms;
static flowd_screen_host *figures_host;
static uint64_t tap_screen, tap_due_ms;
static int tap_index;

static uint64_t now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}

static void plan_tap(uint64_t screen, const flowd_placement *placement) {
    if (!figures || !placement->visible) return;
    tap_screen = screen;
    tap_index = flowd_placement_stack_index(placement);
    tap_due_ms = now_ms() + (uint64_t)tap_after_ms;
}

static void tap_if_due(void) {
    if (!tap_screen || now_ms() < tap_due_ms) return;
    struct timespec at;
    clock_gettime(CLOCK_MONOTONIC, &at);
    fprintf(stderr, "colour-screen: tap: screen %llu %s at %lld.%06ld\n", (unsigned long long)tap_screen,
            tap_index % 2 == 0 ? "push" : "back", (long long)at.tv_sec, at.tv_nsec / 1000);
    if (tap_index % 2 == 0) flowd_screen_send_json(figures_host, tap_screen, "{\"didPressButton\":{\"index\":0}}", NULL);
    else flowd_screen_back(figures_host, tap_screen, FLOWD_PHASE_IMMEDIATE, NULL);
    tap_screen = 0;
}

static void placement_changed(flowd_screen_host *host, const flowd_placement_changed *change, void *user) {
    (void)host;
    (void)user;
    plan_tap(change->screen_id, &change->placement);
}

uint32_t colour_of(uint64_t screen);
uint32_t colour_of(uint64_t screen) {
    uint32_t hash = (uint32_t)(screen * 2654435761u);
    uint32_t red = 0x40 + (hash & 0xbf), green = 0x40 + ((hash >> 8) & 0xbf), blue = 0x40 + ((hash >> 16) & 0xbf);
    return 0xff000000u | red << 16 | green << 8 | blue;
}

static void wm_ping(void *data, struct xdg_wm_base *base, uint32_t serial) {
    (void)data;
    xdg_wm_base_pong(base, serial);
}
static const struct xdg_wm_base_listener wm_listener = {.ping = wm_ping};

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    (void)data;
    (void)version;
    if (!strcmp(interface, wl_compositor_interface.name)) compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
    else if (!strcmp(interface, wl_shm_interface.name)) shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
    else if (!strcmp(interface, xdg_wm_base_interface.name)) {
        wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
        xdg_wm_base_add_listener(wm_base, &wm_listener, NULL);
    }
}
static void global_remove(void *data, struct wl_registry *registry, uint32_t name) {
    (void)data;
    (void)registry;
    (void)name;
}
static const struct wl_registry_listener registry_listener = {.global = global, .global_remove = global_remove};

static void trace(const char *event, uint64_t screen) {
    if (!figures) return;
    struct timespec at;
    clock_gettime(CLOCK_MONOTONIC, &at);
    fprintf(stderr, "colour-screen: trace: %s screen %llu at %lld.%06ld\n", event, (unsigned long long)screen, (long long)at.tv_sec, at.tv_nsec / 1000);
}

static void paint(struct window *window) {
    int width = window->width > 0 ? window->width : 400, height = window->height > 0 ? window->height : 300;
    int stride = width * 4, size = stride * height;
    int fd = memfd_create("colour-screen", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, size) != 0) {
        perror("colour-screen: memfd");
        exit(1);
    }
    uint32_t *pixels = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    uint32_t colour = colour_of(window->screen);
    for (int index = 0; index < width * height; index++) pixels[index] = colour;
    munmap(pixels, (size_t)size);
    struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, size);
    if (window->buffer) wl_buffer_destroy(window->buffer);
    window->buffer = wl_shm_pool_create_buffer(pool, 0, width, height, stride, WL_SHM_FORMAT_XRGB8888);
    wl_shm_pool_destroy(pool);
    close(fd);
    wl_surface_attach(window->surface, window->buffer, 0, 0);
    wl_surface_damage(window->surface, 0, 0, width, height);
    wl_surface_commit(window->surface);
    trace("painted", window->screen);
}

static void surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial) {
    struct window *window = data;
    xdg_surface_ack_configure(xdg_surface, serial);
    window->configured = true;
    if (window->held && !released) return;
    window->held = false;
    paint(window);
}
static const struct xdg_surface_listener surface_listener = {.configure = surface_configure};

static void toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width, int32_t height, struct wl_array *states) {
    (void)toplevel;
    (void)states;
    struct window *window = data;
    if (width > 0) window->width = width;
    if (height > 0) window->height = height;
}
static void toplevel_close(void *data, struct xdg_toplevel *toplevel) {
    (void)data;
    (void)toplevel;
}
static const struct xdg_toplevel_listener toplevel_listener = {.configure = toplevel_configure, .close = toplevel_close};

static struct window *window_of(uint64_t screen) {
    for (int index = 0; index < MAX_WINDOWS; index++) {
        if (windows[index].screen == screen && windows[index].surface) return &windows[index];
    }
    return NULL;
}

static void placed(flowd_screen_host *host, const flowd_place *place, void *user) {
    (void)host;
    (void)user;
    trace("placed", place->screen_id);
    struct window *window = window_of(place->screen_id);
    if (!window) {
        for (int index = 0; index < MAX_WINDOWS && !window; index++) {
            if (!windows[index].surface) window = &windows[index];
        }
        if (!window) return;
        memset(window, 0, sizeof *window);
        window->screen = place->screen_id;
        const char *hold = getenv("COLOUR_SCREEN_HOLD_KIND");
        window->held = hold && !strcmp(hold, place->kind);
        window->surface = wl_compositor_create_surface(compositor);
        window->xdg_surface = xdg_wm_base_get_xdg_surface(wm_base, window->surface);
        xdg_surface_add_listener(window->xdg_surface, &surface_listener, window);
        window->toplevel = xdg_surface_get_toplevel(window->xdg_surface);
        xdg_toplevel_add_listener(window->toplevel, &toplevel_listener, window);
        char title[160];
        snprintf(title, sizeof title, "%s %llu", place->kind, (unsigned long long)place->screen_id);
        xdg_toplevel_set_title(window->toplevel, title);
        xdg_toplevel_set_app_id(window->toplevel, "flowd-colour-screen");
        fprintf(stderr, "colour-screen: claims screen %llu with token %s\n", (unsigned long long)place->screen_id, place->display_token);
        if (flowd_shell_claim(display, window->surface, place->display_token) != 0) {
            fprintf(stderr, "colour-screen: the compositor is not flowd-shell, or no display_token came\n");
        }
        wl_surface_commit(window->surface); /* the initial commit: the shell answers with a configure */
    } else {
        flowd_shell_claim(display, window->surface, place->display_token); /* a new Place: a new secret */
    }
    plan_tap(place->screen_id, &place->placement);
    wl_display_flush(display);
}

static void dismissed(flowd_screen_host *host, const flowd_dismiss *dismiss, void *user) {
    (void)host;
    (void)user;
    struct window *window = window_of(dismiss->screen_id);
    if (!window) return;
    if (window->buffer) wl_buffer_destroy(window->buffer);
    xdg_toplevel_destroy(window->toplevel);
    xdg_surface_destroy(window->xdg_surface);
    wl_surface_destroy(window->surface);
    memset(window, 0, sizeof *window);
    wl_display_flush(display);
}

static bool connect_display(void) {
    for (int attempt = 0; attempt < 300; attempt++) {
        display = wl_display_connect(NULL);
        if (display) break;
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    if (!display) {
        fprintf(stderr, "colour-screen: no Wayland display (WAYLAND_DISPLAY=%s) after 30 s\n", getenv("WAYLAND_DISPLAY") ?: "");
        return false;
    }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (!compositor || !shm || !wm_base) {
        fprintf(stderr, "colour-screen: the compositor lacks wl_compositor, wl_shm or xdg_wm_base\n");
        return false;
    }
    return true;
}

/* --forge TOKEN: claims a toplevel with TOKEN; exits 3 when the shell ends the connection with a
 * protocol error (refused), 0 when it shows the surface. --unclaimed: draws a toplevel it never
 * claims, says "drawn", and stays. Both test the shell's rules. */
static int forge(const char *token) {
    struct window *window = &windows[0];
    window->screen = 0x5eed;
    window->surface = wl_compositor_create_surface(compositor);
    window->xdg_surface = xdg_wm_base_get_xdg_surface(wm_base, window->surface);
    xdg_surface_add_listener(window->xdg_surface, &surface_listener, window);
    window->toplevel = xdg_surface_get_toplevel(window->xdg_surface);
    xdg_toplevel_add_listener(window->toplevel, &toplevel_listener, window);
    if (getenv("COLOUR_SCREEN_DESTROY_ROLE")) { /* a surface whose toplevel is gone keeps the role with no data */
        xdg_toplevel_destroy(window->toplevel);
        xdg_surface_destroy(window->xdg_surface);
    }
    if (token && flowd_shell_claim(display, window->surface, token) != 0) return 1;
    wl_surface_commit(window->surface);
    /* The shell refuses an unknown secret only after a Ping to flowd comes back: wait for it up to 5 s
     * (20 roundtrips alone were over before a loaded flowd answered). */
    for (int round = 0; round < 500; round++) {
        if (round) nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
        if (wl_display_roundtrip(display) < 0) {
            uint32_t code = 0;
            const struct wl_interface *interface = NULL;
            wl_display_get_protocol_error(display, &interface, NULL);
            code = wl_display_get_protocol_error(display, NULL, NULL);
            fprintf(stderr, "colour-screen: refused: protocol error %u on %s\n", code, interface ? interface->name : "?");
            return 3;
        }
        if (window->buffer && !token) {
            printf("drawn\n");
            fflush(stdout);
            while (wl_display_dispatch(display) >= 0) {}
            return 0;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--forge")) return connect_display() ? forge(argv[2]) : 75;
    if (argc == 2 && !strcmp(argv[1], "--unclaimed")) return connect_display() ? forge(NULL) : 75;
    const char *kinds[16];
    size_t count = 0;
    const char *socket_path = NULL;
    for (int index = 1; index < argc; index++) {
        if (!strcmp(argv[index], "--provide") && index + 1 < argc && count < 16) kinds[count++] = argv[++index];
        else if (!strcmp(argv[index], "--socket") && index + 1 < argc) socket_path = argv[++index];
        else {
            fprintf(stderr, "usage: colour-screen [--socket PATH] [--provide KIND]... (spawned by flowd: no arguments)\n");
            return 2;
        }
    }
    if (!connect_display()) return 75;
    flowd_screen_options options;
    flowd_screen_options_init(&options);
    options.name = "colour-screen";
    options.provides = kinds;
    options.provides_count = count;
    options.socket_path = socket_path;
    options.callbacks.placed = placed;
    options.callbacks.dismissed = dismissed;
    options.callbacks.placement_changed = placement_changed;
    signal(SIGUSR1, release);
    figures = getenv("FLOWD_SHELL_FIGURES") != NULL;
    tap_after_ms = figures ? atoi(getenv("FLOWD_SHELL_FIGURES")) : 0;
    flowd_error error;
    flowd_screen_host *host = flowd_screen_open(&options, &error);
    if (!host) {
        fprintf(stderr, "colour-screen: %s\n", error.message);
        return 1;
    }
    figures_host = host;
    for (;;) {
        while (wl_display_prepare_read(display) != 0) wl_display_dispatch_pending(display);
        wl_display_flush(display);
        struct pollfd fds[2] = {{.fd = wl_display_get_fd(display), .events = POLLIN},
                                {.fd = flowd_screen_fd(host), .events = flowd_screen_events(host)}};
        int timeout = flowd_screen_timeout_ms(host);
        if (tap_screen) timeout = timeout < 0 || timeout > 10 ? 10 : timeout;
        int result = poll(fds, fds[1].fd >= 0 ? 2 : 1, timeout);
        if (result < 0 && errno != EINTR) {
            wl_display_cancel_read(display);
            break;
        }
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            if (wl_display_read_events(display) != 0 || wl_display_dispatch_pending(display) < 0) {
                fprintf(stderr, "colour-screen: the display is gone (%s)\n", strerror(wl_display_get_error(display)));
                return 75;
            }
        } else {
            wl_display_cancel_read(display);
        }
        if (wl_display_get_error(display)) {
            fprintf(stderr, "colour-screen: the display ended the connection (%s)\n", strerror(wl_display_get_error(display)));
            return 75;
        }
        if (flowd_screen_dispatch(host) != 0) break;
        tap_if_due();
        for (int index = 0; released && index < MAX_WINDOWS; index++) {
            if (windows[index].held && windows[index].configured) {
                windows[index].held = false;
                paint(&windows[index]);
            }
        }
    }
    const flowd_end *end = flowd_screen_end(host);
    int status = end->reason == FLOWD_END_ERROR ? 1 : 0;
    flowd_screen_free(host);
    wl_display_disconnect(display);
    return status;
}
