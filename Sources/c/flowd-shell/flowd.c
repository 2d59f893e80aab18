/* The shell's connection to flowd, as a display (docs/protocol.md §24): each scene is applied
 * whole; when flowd goes away the picture stays and the shell connects again (every 100 ms, up to
 * 1 s apart), then applies the first scene it gets. */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include "shell.h"

static void connect_now(void);

static int reconnect_due(void *data) {
    (void)data;
    connect_now();
    return 0;
}

static void schedule_reconnect(void) {
    unsigned delay = 100u << (shell.reconnects < 4 ? shell.reconnects : 4);
    if (delay > 1000) delay = 1000;
    shell.reconnects++;
    wl_event_source_timer_update(shell.reconnect_timer, (int)delay);
}

static void watch(void);

static void lost(void) {
    const flowd_end *end = flowd_display_end(shell.flowd);
    if (shell.connected || shell.reconnects == 0) {
        shell_say("flowd: gone (%s); keeping the picture and connecting again",
                  end && end->reason == FLOWD_END_ERROR ? end->error.message
                  : end && end->reason == FLOWD_END_SHUTDOWN ? "it shut down" : "connection closed");
    }
    shell.connected = false;
    /* Nonces are the connection's: the next one counts again. */
    shell.last_pong = 0;
    shell.sync_nonce = 0;
    views_flowd_lost();
    if (shell.flowd_io) wl_event_source_remove(shell.flowd_io);
    shell.flowd_io = NULL;
    shell.flowd_io_fd = -1;
    flowd_display_free(shell.flowd);
    shell.flowd = NULL;
    layout_title_changed();
    schedule_reconnect();
}

static void dispatch(void) {
    if (!shell.flowd) return;
    if (flowd_display_dispatch(shell.flowd) != 0) {
        lost();
        return;
    }
    watch();
}

static int readable(int fd, uint32_t mask, void *data) {
    (void)fd;
    (void)mask;
    (void)data;
    dispatch();
    return 0;
}

static int timed_out(void *data) {
    (void)data;
    dispatch();
    return 0;
}

/* Watches the connection's descriptor for what it waits for, and its deadline. */
static void watch(void) {
    int fd = flowd_display_fd(shell.flowd);
    short events = flowd_display_events(shell.flowd);
    uint32_t mask = ((events & POLLIN) ? WL_EVENT_READABLE : 0) | ((events & POLLOUT) ? WL_EVENT_WRITABLE : 0);
    if (fd != shell.flowd_io_fd) {
        if (shell.flowd_io) wl_event_source_remove(shell.flowd_io);
        shell.flowd_io = fd >= 0 ? wl_event_loop_add_fd(shell.loop, fd, mask, readable, NULL) : NULL;
        shell.flowd_io_fd = fd;
    } else if (shell.flowd_io) {
        wl_event_source_fd_update(shell.flowd_io, mask);
    }
    int timeout = flowd_display_timeout_ms(shell.flowd);
    wl_event_source_timer_update(shell.flowd_timer, timeout > 0 ? timeout : timeout == 0 ? 1 : 0);
}

static void welcomed(flowd_display *display, const flowd_welcome *welcome, void *user) {
    (void)display;
    (void)user;
    shell.connected = true;
    shell_say("flowd: connected as display #%llu of app %s (%s)%s", (unsigned long long)welcome->connection_id, welcome->app,
              welcome->server, shell.reconnects ? ", again" : "");
    shell.reconnects = 0;
}

static void scene(flowd_display *display, const flowd_scene *received, void *user) {
    (void)display;
    (void)user;
    shell.scene_seq = received->seq;
    shell_trace("scene", received->visible_screen);
    layout_apply(received);
    shell_say("scene: %llu visible %llu transition %d%s", (unsigned long long)received->seq,
              (unsigned long long)received->visible_screen, received->transition, received->animated ? " animated" : "");
    views_scene_changed();
}

static void error(flowd_display *display, const flowd_error *reported, void *user) {
    (void)display;
    (void)user;
    shell_say("flowd: refused: %s %s", flowd_error_name(reported->code), reported->message);
}

static void pong(flowd_display *display, uint64_t nonce, void *user) {
    (void)display;
    (void)user;
    if (nonce > shell.last_pong) shell.last_pong = nonce;
    views_pong(nonce);
    if (shell.sync_waiting && nonce >= shell.sync_nonce) control_synced();
}

static void sent(int result, const flowd_error *failure);

static void connect_now(void) {
    flowd_display_options options;
    flowd_display_options_init(&options);
    options.name = shell.name;
    options.socket_path = shell.flowd_socket;
    options.callbacks.welcomed = welcomed;
    options.callbacks.scene = scene;
    options.callbacks.error = error;
    options.callbacks.pong = pong;
    flowd_error failure;
    shell.flowd = flowd_display_connect(&options, &failure);
    if (!shell.flowd) {
        if (shell.reconnects == 0) shell_say("flowd: cannot connect yet (%s); trying again", failure.message);
        if (failure.code == FLOWD_ERROR_UNTRUSTED_SERVER) {
            shell_say("flowd: %s; not connecting to it", failure.message);
            return;
        }
        schedule_reconnect();
        return;
    }
    shell.flowd_io_fd = -1;
    flowd_provide_displays();
    watch();
}

void flowd_provide_displays(void) {
    if (!shell.flowd) return;
    flowd_provided_display displays[FLOWD_MAX_PROVIDED_DISPLAYS];
    int count = windows_provided(displays, FLOWD_MAX_PROVIDED_DISPLAYS);
    if (count < 0) {
        static bool said;
        if (!said) shell_say("flowd: an output has no --displays name, so it shows any window: no displays provided");
        said = true;
        return;
    }
    flowd_error failure;
    int result = flowd_display_provide(shell.flowd, displays, (size_t)count, &failure);
    if (result == 0) shell_say("flowd: provides %d display(s)", count);
    sent(result, &failure);
}

void flowd_start(void) {
    shell.flowd_timer = wl_event_loop_add_timer(shell.loop, timed_out, NULL);
    shell.reconnect_timer = wl_event_loop_add_timer(shell.loop, reconnect_due, NULL);
    connect_now();
}

static void sent(int result, const flowd_error *failure) {
    if (result != 0) shell_say("flowd: not sent: %s", failure->message);
    if (shell.flowd) watch();
}

/* Back on the visible screen: close-modal at the root of a modal's content, else back. */
void flowd_back(int phase) {
    if (!shell.connected || !shell.visible || !shell.back_applies) return;
    flowd_error failure;
    struct slot *slot = slot_for_screen(shell.visible);
    /* Back pops a stacked screen; at the root of a modal's content it closes the modal. */
    bool close = shell.in_modal && slot && !shell.visible_stacked;
    /* flowd does not animate what the user removed (REASON_USER_NAVIGATION); a tap or a key has not
     * moved anything yet, so the shell animates it itself. A committed swipe already moved. */
    if (phase == FLOWD_PHASE_IMMEDIATE) shell.own_back = shell.visible;
    int result = close ? flowd_display_close_modal(shell.flowd, shell.visible, (flowd_phase)phase, &failure)
                       : flowd_display_back(shell.flowd, shell.visible, (flowd_phase)phase, &failure);
    sent(result, &failure);
}

/* Closes the window `screen` is in (a window a flow opened, on another output). */
void flowd_close_window(uint64_t screen, int phase) {
    if (!shell.connected || !screen) return;
    flowd_error failure;
    sent(flowd_display_close_window(shell.flowd, screen, (flowd_phase)phase, &failure), &failure);
}

void flowd_select_tab(uint32_t index) {
    if (!shell.connected || index >= shell.tab_count) return;
    flowd_error failure;
    /* the visible screen is in the top layer's tab bar: any of its screens names the bar */
    sent(flowd_display_select_tab(shell.flowd, shell.visible,
                                  index, &failure), &failure);
}

bool flowd_ping(uint64_t *nonce) {
    if (!shell.connected) return false;
    flowd_error failure;
    int result = flowd_display_ping(shell.flowd, nonce, &failure);
    sent(result, &failure);
    return result == 0;
}
