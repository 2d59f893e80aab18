/* flowd-shell's start: arguments, the wlroots backend and output, the frame clock. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <wlr/backend.h>
#include <wlr/backend/headless.h>
#include <wlr/interfaces/wlr_output.h>
#include <wlr/render/allocator.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_output_damage.h>
#include <wlr/types/wlr_screencopy_v1.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xdg_output_v1.h>
#include <wlr/util/log.h>
#include "shell.h"

struct shell shell;

static const char usage[] =
    "usage: flowd-shell [--socket PATH] [--size WIDTHxHEIGHT] [--hold MS] [--displays A,B] [--control] [--name NAME] [--verbose]\n"
    "\n"
    "A Wayland compositor that shows flowd's screens where its navigation model puts them.\n"
    "  --socket PATH   flowd's socket (default: $FLOWD_SOCKET, $XDG_RUNTIME_DIR/flowd/flowd.sock)\n"
    "  --size WxH      the output's size headless, and the window's on a desktop (default 800x600)\n"
    "  --displays A,B  the displays of the outputs after the first, in order: each shows the window a flow\n"
    "                  opened on that display (default: the windows in the order they opened)\n"
    "  --hold MS       how long a push or a modal waits for the new screen's first frame, keeping the\n"
    "                  old picture, before it moves in empty (default 500, 0 to 60000)\n"
    "  --control       read commands on standard input (back, swipe, tab, sync; docs/shell.md)\n"
    "  --name NAME     the display's name in flowd's logs and flowctl tree (default flowd-shell)\n"
    "  --verbose       wlroots' own log at debug level\n"
    "Headless: WLR_BACKENDS=headless WLR_RENDERER=pixman. Needs XDG_RUNTIME_DIR (its Wayland socket goes there).\n";

uint64_t shell_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}

/* Lines for people and for tests, on standard output, each flushed. */
void shell_say(const char *format, ...) {
    va_list args;
    va_start(args, format);
    vfprintf(stdout, format, args);
    va_end(args);
    fputc('\n', stdout);
    fflush(stdout);
}

void shell_trace(const char *event, uint64_t screen) {
    if (!shell.trace) return;
    struct timespec at;
    clock_gettime(CLOCK_MONOTONIC, &at);
    shell_say("trace: %s screen %llu at %lld.%06ld", event, (unsigned long long)screen, (long long)at.tv_sec, at.tv_nsec / 1000);
}

void shell_schedule_frame(void) {
    if (shell.output) wlr_output_schedule_frame(shell.output);
}

/* A frame: the motion advances, the scene is drawn if anything changed, clients get their frame
 * callbacks. Headless outputs run at 1 mHz (their own timer never wakes us); after a frame that
 * drew, our one-shot SHELL_FRAME_MS timer stands in for the vblank, so an idle shell makes no syscalls. */
static void output_frame(struct wl_listener *listener, void *data) {
    (void)listener;
    (void)data;
    bool moving = layout_tick(shell_now_ms());
    struct wlr_scene_output *scene_output = wlr_scene_get_scene_output(shell.scene, shell.output);
    /* wlroots 0.15 asks for a frame whenever any node moves, even one with nothing to draw (a new
     * screen's empty slot), and a committed frame holds the next one for a frame: only a frame
     * that shows something (or that a screenshot waits for) is committed, so the next screen's
     * first frame goes out at once. */
    if (moving || pixman_region32_not_empty(&scene_output->damage->current) || !wl_list_empty(&shell.screencopy->frames)) {
        shell_trace("frame", shell.visible);
        wlr_scene_output_commit(scene_output);
        shell_trace("committed", shell.visible);
    }
    /* The first frame on the output with the visible screen's own surface: for scripts/shell-figures. */
    if (shell.visible != shell.presented && layout_visible_drawn()) {
        struct timespec at;
        clock_gettime(CLOCK_MONOTONIC, &at);
        shell.presented = shell.visible;
        shell_say("presented: screen %llu at %lld.%06ld", (unsigned long long)shell.visible, (long long)at.tv_sec, at.tv_nsec / 1000);
    }
    if (shell.headless && shell.output->frame_pending && shell.vblank) wl_event_source_timer_update(shell.vblank, SHELL_FRAME_MS);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    wlr_scene_output_send_frame_done(scene_output, &now);
    if (moving) shell_schedule_frame();
    if (shell.sync_waiting) control_synced();
}

static int vblank(void *data) {
    (void)data;
    wlr_output_send_frame(shell.output);
    return 0;
}

/* A headless output is set to 1 mHz so that the backend's own frame timer never fires (our vblank
 * timer paces it), but wl_output.mode tells clients that rate: GTK 4 takes it as its refresh
 * interval (1e9 / 1 mHz us, 1000 s) and then waits that long between two frames, so it never drew an
 * Update after its first frame on an output. Clients hear the pace our SHELL_FRAME_MS timer really
 * has; the backend's timer keeps its 1 mHz (wlr_output_update_custom_mode only advertises). */
void shell_advertise_refresh(struct wlr_output *output) {
    if (shell.headless) wlr_output_update_custom_mode(output, output->width, output->height, 1000000 / SHELL_FRAME_MS);
}

static struct wl_listener new_output_listener, frame_listener, output_destroy_listener;

/* The output is gone (the desktop window was closed): so is the shell. */
static void output_destroyed(struct wl_listener *listener, void *data) {
    (void)listener;
    (void)data;
    wl_list_remove(&frame_listener.link);
    wl_list_remove(&output_destroy_listener.link);
    if (shell.vblank) wl_event_source_remove(shell.vblank);
    shell.vblank = NULL;
    shell.output = NULL;
    wl_display_terminate(shell.display);
}

static void new_output(struct wl_listener *listener, void *data) {
    (void)listener;
    struct wlr_output *output = data;
    if (shell.output) { /* the first output shows the main window; the others, windows flows opened */
        windows_add_output(output);
        return;
    }
    wlr_output_init_render(output, shell.allocator, shell.renderer);
    struct wlr_output_mode *mode = wlr_output_preferred_mode(output);
    if (mode && !shell.headless) {
        wlr_output_set_mode(output, mode);
    } else {
        wlr_output_set_custom_mode(output, shell.width, shell.height, shell.headless ? 1 : 0);
    }
    wlr_output_enable(output, true);
    if (!wlr_output_commit(output)) {
        fprintf(stderr, "flowd-shell: the output %s could not be enabled\n", output->name);
        return;
    }
    shell.output = output;
    shell_advertise_refresh(output);
    if (!shell.headless && output->width > 0) {
        shell.width = output->width;
        shell.height = output->height;
    }
    frame_listener.notify = output_frame;
    wl_signal_add(&output->events.frame, &frame_listener);
    output_destroy_listener.notify = output_destroyed;
    wl_signal_add(&output->events.destroy, &output_destroy_listener);
    shell.vblank = wl_event_loop_add_timer(shell.loop, vblank, NULL);
    wlr_output_layout_add_auto(shell.layout, output);
    wlr_output_create_global(output);
    layout_place();
}

/* wl_display_add_socket_auto says nothing when it fails: say why here. */
static bool check_runtime_dir(void) {
    const char *dir = getenv("XDG_RUNTIME_DIR");
    if (!dir || !*dir) {
        fprintf(stderr, "flowd-shell: XDG_RUNTIME_DIR is not set; the Wayland socket goes there (a directory of yours, mode 0700)\n");
        return false;
    }
    struct stat info;
    if (stat(dir, &info) != 0 || !S_ISDIR(info.st_mode)) {
        fprintf(stderr, "flowd-shell: XDG_RUNTIME_DIR %s is not a directory\n", dir);
        return false;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "flowd-shell: cannot create the Wayland socket in XDG_RUNTIME_DIR %s: %s\n", dir, strerror(errno));
        return false;
    }
    return true;
}

static bool parse_size(const char *text) {
    int width = 0, height = 0;
    char end = 0;
    if (sscanf(text, "%dx%d%c", &width, &height, &end) != 2 || width < 320 || height < 240 || width > 8192 || height > 8192) {
        fprintf(stderr, "flowd-shell: --size takes WIDTHxHEIGHT between 320x240 and 8192x8192, got '%s'\n", text);
        return false;
    }
    shell.width = width;
    shell.height = height;
    return true;
}

static bool parse_hold(const char *text) {
    int hold = -1;
    char end = 0;
    if (sscanf(text, "%d%c", &hold, &end) != 1 || hold < 0 || hold > 60000) {
        fprintf(stderr, "flowd-shell: --hold takes milliseconds from 0 to 60000, got '%s'\n", text);
        return false;
    }
    shell.hold_ms = hold;
    return true;
}

int main(int argc, char **argv) {
    bool verbose = false;
    shell.hold_ms = 500;
    shell.width = 800;
    shell.height = 600;
    shell.name = "flowd-shell";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(arg, "--socket") && has_value) shell.flowd_socket = argv[++i];
        else if (!strcmp(arg, "--size") && has_value) { if (!parse_size(argv[++i])) return 2; }
        else if (!strcmp(arg, "--name") && has_value) shell.name = argv[++i];
        else if (!strcmp(arg, "--hold") && has_value) { if (!parse_hold(argv[++i])) return 2; }
        else if (!strcmp(arg, "--displays") && has_value) { if (!windows_set_names(argv[++i])) return 2; }
        else if (!strcmp(arg, "--control")) shell.control = true;
        else if (!strcmp(arg, "--verbose")) verbose = true;
        else if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) { fputs(usage, stdout); return 0; }
        else {
            fprintf(stderr, "flowd-shell: unknown argument '%s' (or it needs a value)\n%s", arg, usage);
            return 2;
        }
    }
    if (!check_runtime_dir()) return 1;
    wlr_log_init(verbose ? WLR_DEBUG : WLR_ERROR, NULL);

    shell.display = wl_display_create();
    shell.loop = wl_display_get_event_loop(shell.display);
    const char *backends = getenv("WLR_BACKENDS");
    shell.headless = backends && !strcmp(backends, "headless");
    shell.trace = getenv("FLOWD_SHELL_TRACE") != NULL;
    shell.backend = shell.headless ? wlr_headless_backend_create(shell.display) : wlr_backend_autocreate(shell.display);
    if (!shell.backend) {
        fprintf(stderr, "flowd-shell: no backend (a desktop session's WAYLAND_DISPLAY or DISPLAY, DRM, or WLR_BACKENDS=headless)\n");
        return 1;
    }
    shell.renderer = wlr_renderer_autocreate(shell.backend);
    if (!shell.renderer) {
        fprintf(stderr, "flowd-shell: no renderer (WLR_RENDERER=pixman renders on the CPU)\n");
        return 1;
    }
    wlr_renderer_init_wl_display(shell.renderer, shell.display);
    shell.allocator = wlr_allocator_autocreate(shell.backend, shell.renderer);
    wlr_compositor_create(shell.display, shell.renderer);
    wlr_data_device_manager_create(shell.display);
    shell.layout = wlr_output_layout_create();
    wlr_xdg_output_manager_v1_create(shell.display, shell.layout);
    shell.screencopy = wlr_screencopy_manager_v1_create(shell.display); /* grim, and the tests' screenshots */
    shell.scene = wlr_scene_create();
    wlr_scene_attach_output_layout(shell.scene, shell.layout);
    shell.seat = wlr_seat_create(shell.display, "seat0");

    wl_list_init(&shell.views);
    wl_list_init(&shell.slots);
    wl_list_init(&shell.claim_waits);
    layout_init();
    views_init();
    input_init();
    new_output_listener.notify = new_output;
    wl_signal_add(&shell.backend->events.new_output, &new_output_listener);

    const char *socket = wl_display_add_socket_auto(shell.display);
    if (!socket) {
        fprintf(stderr, "flowd-shell: no free Wayland socket in %s\n", getenv("XDG_RUNTIME_DIR"));
        return 1;
    }
    if (shell.headless) {
        /* WLR_HEADLESS_OUTPUTS=N: N outputs side by side, the first for the main window. */
        const char *count = getenv("WLR_HEADLESS_OUTPUTS");
        int outputs = count && atoi(count) > 0 ? atoi(count) : 1;
        if (outputs > 8) outputs = 8;
        for (int index = 0; index < outputs; index++) wlr_headless_add_output(shell.backend, (unsigned)shell.width, (unsigned)shell.height);
    }
    if (!wlr_backend_start(shell.backend)) {
        fprintf(stderr, "flowd-shell: the backend did not start\n");
        return 1;
    }
    setenv("WAYLAND_DISPLAY", socket, 1);
    shell_say("flowd-shell: WAYLAND_DISPLAY=%s %dx%d%s", socket, shell.width, shell.height, shell.headless ? " headless" : "");
    flowd_start();
    if (shell.control) control_start();
    wl_display_run(shell.display);
    wl_display_destroy_clients(shell.display);
    wl_display_destroy(shell.display);
    return 0;
}
