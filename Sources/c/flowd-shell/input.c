/* Input: keyboards (Escape and Alt+Left are back; every other key goes to the visible screen) and
 * the control channel, commands on standard input for tests and scripts (docs/shell.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wlr/backend.h>
#include <linux/input-event-codes.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_input_device.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_pointer.h>
#include <wlr/types/wlr_touch.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_xcursor_manager.h>
#include <wlr/types/wlr_keyboard.h>
#include <wlr/types/wlr_seat.h>
#include <xkbcommon/xkbcommon.h>
#include "shell.h"

struct keyboard {
    struct wlr_input_device *device;
    struct wl_listener key, modifiers, destroy;
};

static struct wl_listener new_input_listener;
static struct wlr_cursor *cursor;
static struct wlr_xcursor_manager *cursor_images;
static struct wl_listener motion_listener, motion_absolute_listener, button_listener, axis_listener, frame_listener;

/* ---- the back swipe: dragged from the visible screen's left edge with the pointer or a finger, or
 * driven by the control channel. Begin, then commit when let go past SHELL_SWIPE_COMMIT of the
 * width, else cancel: flowd hears each phase as user navigation (protocol.md, UserNavigation). */

static struct wl_event_source *swipe_timer;

/* A committed swipe ends with flowd's pop; one flowd refused slides back. */
static int swipe_unanswered(void *data) {
    (void)data;
    if (!shell.swipe.active || !shell.swipe.committed) return 0;
    shell_say("swipe: flowd kept screen %llu; it slides back", (unsigned long long)shell.swipe.screen);
    shell.swipe.active = false;
    layout_place();
    return 0;
}

static bool swipe_begin(int32_t touch_id, double x) {
    if (!shell.back_applies) {
        shell_say("swipe: nothing to go back from");
        return false;
    }
    shell.swipe = (struct swipe){.active = true, .screen = shell.visible, .touch_id = touch_id, .origin_x = x};
    flowd_back(FLOWD_PHASE_BEGIN);
    layout_place();
    return true;
}

static void swipe_move(double progress) {
    shell.swipe.progress = progress < 0 ? 0 : progress > 1 ? 1 : progress;
    layout_place();
}

static void swipe_end(bool commit) {
    shell.swipe.dragging = false;
    if (commit) {
        shell.swipe.progress = 1;
        shell.swipe.committed = true;
        flowd_back(FLOWD_PHASE_COMMIT); /* the swipe ends with the scene that pops it */
        if (!swipe_timer) swipe_timer = wl_event_loop_add_timer(shell.loop, swipe_unanswered, NULL);
        wl_event_source_timer_update(swipe_timer, 1000);
    } else {
        flowd_back(FLOWD_PHASE_CANCEL);
        shell.swipe.active = false;
    }
    layout_place();
}

/* A press (pointer or touch) at (x, y) starts a drag when it lands on the visible screen's left edge. */
static bool drag_begin(int32_t touch_id, double x, double y) {
    if (shell.swipe.active || !shell.back_applies) return false;
    int area_x, area_y, width, height;
    layout_visible_area(&area_x, &area_y, &width, &height);
    if (x < area_x || x >= area_x + SHELL_SWIPE_EDGE || y < area_y || y >= area_y + height) return false;
    if (!swipe_begin(touch_id, x)) return false;
    shell.swipe.dragging = true;
    return true;
}

static bool drag_move(int32_t touch_id, double x) {
    if (!shell.swipe.dragging || shell.swipe.touch_id != touch_id) return false;
    int area_x, area_y, width, height;
    layout_visible_area(&area_x, &area_y, &width, &height);
    swipe_move((x - shell.swipe.origin_x) / width);
    return true;
}

static bool drag_end(int32_t touch_id) {
    if (!shell.swipe.dragging || shell.swipe.touch_id != touch_id) return false;
    swipe_end(shell.swipe.progress >= SHELL_SWIPE_COMMIT);
    return true;
}

/* ---- the pointer: the chrome takes its clicks (back, a tab) and the left edge its drags; the rest
 * goes to the surface under it, which is only ever a visible screen's (the dims cover the layers
 * under a modal). */

static void pointer_at(double x, double y, uint32_t time) {
    double sx = 0, sy = 0;
    struct wlr_scene_node *node = wlr_scene_node_at(&shell.scene->node, x, y, &sx, &sy);
    if (node && node->type == WLR_SCENE_NODE_SURFACE) {
        struct wlr_surface *surface = wlr_scene_surface_from_node(node)->surface;
        wlr_seat_pointer_notify_enter(shell.seat, surface, sx, sy);
        wlr_seat_pointer_notify_motion(shell.seat, time, sx, sy);
    } else {
        wlr_seat_pointer_clear_focus(shell.seat);
        if (cursor_images && cursor) wlr_xcursor_manager_set_cursor_image(cursor_images, "left_ptr", cursor);
    }
}

/* A click at (x, y): back in the header's left part, a tab in the tab bar, else to the surface. */
static void pointer_button(double x, double y, uint32_t button, bool pressed, uint32_t time) {
    pointer_at(x, y, time);
    if (button == BTN_LEFT && (pressed ? drag_begin(-1, x, y) : drag_end(-1))) return;
    if (pressed && button == BTN_LEFT) {
        if (windows_close_at(x, y)) return;
        if (y < SHELL_HEADER) {
            if (x < 140 && shell.back_applies) flowd_back(FLOWD_PHASE_IMMEDIATE);
            return;
        }
        int tab = layout_tab_at(x, y);
        if (tab >= 0) {
            flowd_select_tab((uint32_t)tab);
            return;
        }
    }
    wlr_seat_pointer_notify_button(shell.seat, time, button, pressed ? WLR_BUTTON_PRESSED : WLR_BUTTON_RELEASED);
    wlr_seat_pointer_notify_frame(shell.seat);
}

static void pointer_moved(double x, double y, uint32_t time) {
    if (drag_move(-1, x)) return;
    pointer_at(x, y, time);
}

static void cursor_motion(struct wl_listener *listener, void *data) {
    (void)listener;
    struct wlr_event_pointer_motion *event = data;
    wlr_cursor_move(cursor, event->device, event->delta_x, event->delta_y);
    pointer_moved(cursor->x, cursor->y, event->time_msec);
}

static void cursor_motion_absolute(struct wl_listener *listener, void *data) {
    (void)listener;
    struct wlr_event_pointer_motion_absolute *event = data;
    wlr_cursor_warp_absolute(cursor, event->device, event->x, event->y);
    pointer_moved(cursor->x, cursor->y, event->time_msec);
}

/* ---- touch: a finger on the left edge drags the back swipe; any other goes to the surface under it. */

/* Where each finger's surface was when it went down: a touch stays with that surface. */
#define MAX_TOUCHES 10
static struct {
    int32_t id;
    bool down;
    double offset_x, offset_y;
} touches[MAX_TOUCHES];

static void touch_down_at(int32_t id, double x, double y, uint32_t time) {
    if (drag_begin(id, x, y)) return;
    double sx = 0, sy = 0;
    struct wlr_scene_node *node = wlr_scene_node_at(&shell.scene->node, x, y, &sx, &sy);
    if (node && node->type == WLR_SCENE_NODE_SURFACE) {
        for (int index = 0; index < MAX_TOUCHES; index++) {
            if (touches[index].down) continue;
            touches[index].id = id, touches[index].down = true;
            touches[index].offset_x = x - sx, touches[index].offset_y = y - sy;
            wlr_seat_touch_notify_down(shell.seat, wlr_scene_surface_from_node(node)->surface, time, id, sx, sy);
            break;
        }
    } else if (windows_close_at(x, y)) {
        /* another output's title bar: its close button closed the window */
    } else if (y < SHELL_HEADER && x < 140 && shell.back_applies) {
        flowd_back(FLOWD_PHASE_IMMEDIATE); /* the header's back, tapped */
    } else if (layout_tab_at(x, y) >= 0) {
        flowd_select_tab((uint32_t)layout_tab_at(x, y));
    }
}

static void touch_moved_to(int32_t id, double x, double y, uint32_t time) {
    if (drag_move(id, x)) return;
    for (int index = 0; index < MAX_TOUCHES; index++) {
        if (!touches[index].down || touches[index].id != id || !wlr_seat_touch_get_point(shell.seat, id)) continue;
        wlr_seat_touch_notify_motion(shell.seat, time, id, x - touches[index].offset_x, y - touches[index].offset_y);
    }
}

static void touch_lifted(int32_t id, uint32_t time) {
    if (drag_end(id)) return;
    for (int index = 0; index < MAX_TOUCHES; index++) {
        if (touches[index].down && touches[index].id == id) touches[index].down = false;
    }
    if (wlr_seat_touch_get_point(shell.seat, id)) wlr_seat_touch_notify_up(shell.seat, time, id);
}

static struct wl_listener touch_down_listener, touch_motion_listener, touch_up_listener, touch_cancel_listener, touch_frame_listener;

static void layout_point(struct wlr_input_device *device, double nx, double ny, double *x, double *y) {
    wlr_cursor_absolute_to_layout_coords(cursor, device, nx, ny, x, y);
}

static void touch_down(struct wl_listener *listener, void *data) {
    (void)listener;
    struct wlr_event_touch_down *event = data;
    double x, y;
    layout_point(event->device, event->x, event->y, &x, &y);
    touch_down_at(event->touch_id, x, y, event->time_msec);
}

static void touch_motion(struct wl_listener *listener, void *data) {
    (void)listener;
    struct wlr_event_touch_motion *event = data;
    double x, y;
    layout_point(event->device, event->x, event->y, &x, &y);
    touch_moved_to(event->touch_id, x, y, event->time_msec);
}

static void touch_up(struct wl_listener *listener, void *data) {
    (void)listener;
    struct wlr_event_touch_up *event = data;
    touch_lifted(event->touch_id, event->time_msec);
}

static void touch_cancel(struct wl_listener *listener, void *data) {
    (void)listener;
    struct wlr_event_touch_cancel *event = data;
    if (shell.swipe.dragging && shell.swipe.touch_id == event->touch_id) swipe_end(false);
    else touch_lifted(event->touch_id, event->time_msec);
}

static void touch_frame(struct wl_listener *listener, void *data) {
    (void)listener;
    (void)data;
    wlr_seat_touch_notify_frame(shell.seat);
}

static void cursor_button(struct wl_listener *listener, void *data) {
    (void)listener;
    struct wlr_event_pointer_button *event = data;
    pointer_button(cursor->x, cursor->y, event->button, event->state == WLR_BUTTON_PRESSED, event->time_msec);
}

static void cursor_axis(struct wl_listener *listener, void *data) {
    (void)listener;
    struct wlr_event_pointer_axis *event = data;
    wlr_seat_pointer_notify_axis(shell.seat, event->time_msec, event->orientation, event->delta, event->delta_discrete, event->source);
}

static void cursor_frame(struct wl_listener *listener, void *data) {
    (void)listener;
    (void)data;
    wlr_seat_pointer_notify_frame(shell.seat);
}

static void keyboard_key(struct wl_listener *listener, void *data) {
    struct keyboard *keyboard = wl_container_of(listener, keyboard, key);
    struct wlr_event_keyboard_key *event = data;
    struct wlr_keyboard *wlr_keyboard = keyboard->device->keyboard;
    const xkb_keysym_t *symbols;
    int count = xkb_state_key_get_syms(wlr_keyboard->xkb_state, event->keycode + 8, &symbols);
    bool alt = wlr_keyboard_get_modifiers(wlr_keyboard) & WLR_MODIFIER_ALT;
    if (event->state == WL_KEYBOARD_KEY_STATE_PRESSED) {
        for (int index = 0; index < count; index++) {
            if (symbols[index] == XKB_KEY_Escape || (alt && symbols[index] == XKB_KEY_Left)) {
                flowd_back(FLOWD_PHASE_IMMEDIATE);
                return;
            }
        }
    }
    wlr_seat_set_keyboard(shell.seat, keyboard->device);
    wlr_seat_keyboard_notify_key(shell.seat, event->time_msec, event->keycode, event->state);
}

static void keyboard_modifiers(struct wl_listener *listener, void *data) {
    (void)data;
    struct keyboard *keyboard = wl_container_of(listener, keyboard, modifiers);
    wlr_seat_set_keyboard(shell.seat, keyboard->device);
    wlr_seat_keyboard_notify_modifiers(shell.seat, &keyboard->device->keyboard->modifiers);
}

static void keyboard_destroy(struct wl_listener *listener, void *data) {
    (void)data;
    struct keyboard *keyboard = wl_container_of(listener, keyboard, destroy);
    wl_list_remove(&keyboard->key.link);
    wl_list_remove(&keyboard->modifiers.link);
    wl_list_remove(&keyboard->destroy.link);
    free(keyboard);
}

static void new_input(struct wl_listener *listener, void *data) {
    (void)listener;
    struct wlr_input_device *device = data;
    if (device->type == WLR_INPUT_DEVICE_POINTER || device->type == WLR_INPUT_DEVICE_TOUCH) {
        wlr_cursor_attach_input_device(cursor, device);
        return;
    }
    if (device->type != WLR_INPUT_DEVICE_KEYBOARD) return;
    struct keyboard *keyboard = calloc(1, sizeof *keyboard);
    if (!keyboard) return;
    keyboard->device = device;
    struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
    struct xkb_keymap *keymap = xkb_keymap_new_from_names(context, NULL, XKB_KEYMAP_COMPILE_NO_FLAGS);
    wlr_keyboard_set_keymap(device->keyboard, keymap);
    xkb_keymap_unref(keymap);
    xkb_context_unref(context);
    keyboard->key.notify = keyboard_key;
    keyboard->modifiers.notify = keyboard_modifiers;
    keyboard->destroy.notify = keyboard_destroy;
    wl_signal_add(&device->keyboard->events.key, &keyboard->key);
    wl_signal_add(&device->keyboard->events.modifiers, &keyboard->modifiers);
    wl_signal_add(&device->events.destroy, &keyboard->destroy);
    wlr_seat_set_keyboard(shell.seat, device);
}

void input_init(void) {
    new_input_listener.notify = new_input;
    wl_signal_add(&shell.backend->events.new_input, &new_input_listener);
    /* Clients bind wl_pointer and wl_keyboard even before a device comes (the control channel's
     * clicks and keys go through the same paths). */
    wlr_seat_set_capabilities(shell.seat, WL_SEAT_CAPABILITY_KEYBOARD | WL_SEAT_CAPABILITY_POINTER | WL_SEAT_CAPABILITY_TOUCH);
    cursor = wlr_cursor_create();
    wlr_cursor_attach_output_layout(cursor, shell.layout);
    cursor_images = wlr_xcursor_manager_create(NULL, 24);
    motion_listener.notify = cursor_motion;
    motion_absolute_listener.notify = cursor_motion_absolute;
    button_listener.notify = cursor_button;
    axis_listener.notify = cursor_axis;
    frame_listener.notify = cursor_frame;
    wl_signal_add(&cursor->events.motion, &motion_listener);
    wl_signal_add(&cursor->events.motion_absolute, &motion_absolute_listener);
    wl_signal_add(&cursor->events.button, &button_listener);
    wl_signal_add(&cursor->events.axis, &axis_listener);
    wl_signal_add(&cursor->events.frame, &frame_listener);
    touch_down_listener.notify = touch_down;
    touch_motion_listener.notify = touch_motion;
    touch_up_listener.notify = touch_up;
    touch_cancel_listener.notify = touch_cancel;
    touch_frame_listener.notify = touch_frame;
    wl_signal_add(&cursor->events.touch_down, &touch_down_listener);
    wl_signal_add(&cursor->events.touch_motion, &touch_motion_listener);
    wl_signal_add(&cursor->events.touch_up, &touch_up_listener);
    wl_signal_add(&cursor->events.touch_cancel, &touch_cancel_listener);
    wl_signal_add(&cursor->events.touch_frame, &touch_frame_listener);
}

/* ---- the control channel */

static void print_state(void) {
    char line[1024];
    int length = snprintf(line, sizeof line, "state: scene %llu visible %llu flowd %s tabs %u/%u back %s motion %s:",
                          (unsigned long long)shell.scene_seq, (unsigned long long)shell.visible,
                          shell.connected ? "connected" : "away", shell.selected_tab, shell.tab_count,
                          shell.back_applies ? (shell.in_modal && !shell.visible_stacked ? "close" : "back") : "none",
                          !shell.motion.running ? "none" : shell.motion.waiting ? "held" : "moving");
    windows_state(line, 700);
    length = (int)strlen(line);
    struct slot *slot;
    wl_list_for_each(slot, &shell.slots, link) {
        if (length > 900) break;
        length += snprintf(line + length, sizeof line - (size_t)length, " %llu=%s", (unsigned long long)slot->screen,
                           slot->view && slot->view->drawn ? "drawn" : slot->kept ? "kept" : slot->view ? "claimed" : "empty");
    }
    shell_say("%s", line);
}

/* `sync`: answered once flowd answered a Ping sent after it (every scene before it is applied), no
 * motion runs and the visible screen has a frame (its surface's, or the kept one), or after 10 s. */
void control_synced(void) {
    if (!shell.sync_waiting) return;
    bool expired = shell_now_ms() >= shell.sync_deadline_ms;
    const char *why = "flowd is away";
    /* The Ping goes once flowd is there; the answer waits for its Pong. */
    if (shell.connected && shell.sync_nonce == 0 && !flowd_ping(&shell.sync_nonce)) shell.sync_nonce = 0;
    bool heard = shell.connected && shell.sync_nonce != 0 && shell.last_pong >= shell.sync_nonce;
    if (!heard && !expired) return;
    bool settled = heard && layout_settled(&why);
    if (!settled && !expired) return;
    shell.sync_waiting = false;
    wl_event_source_timer_update(shell.sync_timer, 0);
    if (settled) shell_say("synced: scene %llu visible %llu", (unsigned long long)shell.scene_seq, (unsigned long long)shell.visible);
    else shell_say("sync timed out: %s (visible %llu)", why, (unsigned long long)shell.visible);
}

static int sync_check(void *data) {
    (void)data;
    control_synced();
    if (shell.sync_waiting) wl_event_source_timer_update(shell.sync_timer, 20);
    return 0;
}

/* Reads "X Y" from the rest of the command line into (x, y) inside the output. */
static bool read_point(const char *first, double *x, double *y) {
    char *second = strtok(NULL, " \t");
    char *end1 = NULL, *end2 = NULL;
    *x = first ? strtod(first, &end1) : -1;
    *y = second ? strtod(second, &end2) : -1;
    if (!first || !second || *end1 || *end2 || *x < 0 || *y < 0 || *x >= windows_layout_width() || *y >= shell.height) {
        shell_say("error: a point is X Y inside %dx%d", windows_layout_width(), shell.height);
        return false;
    }
    return true;
}

/* `press X Y`, `move X Y`, `release` drive the pointer's left button; `touch down|move X Y`,
 * `touch up` a finger (id 0): the same paths as the devices', for tests without a device. */
static void point_command(const char *word, const char *argument) {
    uint32_t time = (uint32_t)shell_now_ms();
    double x = 0, y = 0;
    if (!strcmp(word, "press") || !strcmp(word, "move")) {
        if (!read_point(argument, &x, &y)) return;
        wlr_cursor_warp(cursor, NULL, x, y);
        if (!strcmp(word, "press")) pointer_button(x, y, BTN_LEFT, true, time);
        else pointer_moved(x, y, time);
    } else if (!strcmp(word, "release")) {
        pointer_button(cursor->x, cursor->y, BTN_LEFT, false, time);
    } else if (!argument) {
        shell_say("error: touch takes down X Y, move X Y or up");
    } else if (!strcmp(argument, "down") || !strcmp(argument, "move")) {
        if (read_point(strtok(NULL, " \t"), &x, &y)) {
            if (!strcmp(argument, "down")) touch_down_at(0, x, y, time);
            else touch_moved_to(0, x, y, time);
        }
    } else if (!strcmp(argument, "up")) {
        touch_lifted(0, time);
    } else {
        shell_say("error: touch takes down X Y, move X Y or up");
    }
}

static void command(char *line) {
    char *word = strtok(line, " \t");
    char *argument = strtok(NULL, " \t");
    if (!word) return;
    if (!strcmp(word, "back") || (!strcmp(word, "key") && argument && (!strcmp(argument, "escape") || !strcmp(argument, "alt+left")))
        || (!strcmp(word, "tap") && argument && !strcmp(argument, "back"))) {
        if (!shell.back_applies) shell_say("back: nothing to go back from on screen %llu", (unsigned long long)shell.visible);
        flowd_back(FLOWD_PHASE_IMMEDIATE);
    } else if (!strcmp(word, "swipe") && argument) {
        if (!strcmp(argument, "begin")) {
            if (swipe_begin(-1, 0)) swipe_move(0.3);
        } else if (!strcmp(argument, "cancel") && shell.swipe.active && !shell.swipe.committed) {
            swipe_end(false);
        } else if (!strcmp(argument, "commit") && shell.swipe.active && !shell.swipe.committed) {
            swipe_end(true);
        } else {
            shell_say("error: swipe takes begin, then cancel or commit");
        }
    } else if (!strcmp(word, "close-window") && argument) {
        /* the window on output N (2 and on): a window a flow opened */
        char *end = NULL;
        long output = strtol(argument, &end, 10);
        uint64_t screen = end && !*end ? windows_visible((int)output) : 0;
        if (!screen) shell_say("error: close-window takes the number of an output that shows a window (2 and on)");
        else flowd_close_window(screen, FLOWD_PHASE_IMMEDIATE);
    } else if (!strcmp(word, "press") || !strcmp(word, "move") || !strcmp(word, "release") || !strcmp(word, "touch")) {
        point_command(word, argument);
    } else if (!strcmp(word, "tab") && argument) {
        char *end = NULL;
        unsigned long index = strtoul(argument, &end, 10);
        if (!end || *end || index >= shell.tab_count) shell_say("error: tab takes 0 to %d", (int)shell.tab_count - 1);
        else flowd_select_tab((uint32_t)index);
    } else if (!strcmp(word, "sync")) {
        shell.sync_waiting = true;
        shell.sync_deadline_ms = shell_now_ms() + 10000;
        shell.sync_nonce = 0;
        if (!shell.sync_timer) shell.sync_timer = wl_event_loop_add_timer(shell.loop, sync_check, NULL);
        wl_event_source_timer_update(shell.sync_timer, 20);
        shell_schedule_frame();
    } else if (!strcmp(word, "click") && argument) {
        char *second = strtok(NULL, " \t");
        char *end1 = NULL, *end2 = NULL;
        double x = strtod(argument, &end1), y = second ? strtod(second, &end2) : -1;
        if (!second || *end1 || *end2 || x < 0 || y < 0 || x >= windows_layout_width() || y >= shell.height) {
            shell_say("error: click takes X Y inside %dx%d", windows_layout_width(), shell.height);
            return;
        }
        uint32_t time = (uint32_t)shell_now_ms();
        pointer_button(x, y, BTN_LEFT, true, time);
        pointer_button(x, y, BTN_LEFT, false, time + 1);
    } else if (!strcmp(word, "state")) {
        print_state();
    } else if (!strcmp(word, "quit")) {
        wl_display_terminate(shell.display);
    } else {
        shell_say("error: unknown command '%s' (back, key escape, key alt+left, tap back, swipe begin|cancel|commit, press X Y, move X Y, release, touch down|move X Y, touch up, close-window N, tab N, click X Y, sync, state, quit)", word);
    }
}

static int control_readable(int fd, uint32_t mask, void *data) {
    (void)data;
    if (mask & (WL_EVENT_HANGUP | WL_EVENT_ERROR)) {
        ssize_t probe = read(fd, shell.control_buffer + shell.control_length, sizeof shell.control_buffer - shell.control_length - 1);
        if (probe <= 0) {
            wl_display_terminate(shell.display); /* the controller is gone: so is the shell */
            return 0;
        }
        shell.control_length += (size_t)probe;
    } else {
        ssize_t got = read(fd, shell.control_buffer + shell.control_length, sizeof shell.control_buffer - shell.control_length - 1);
        if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
            wl_display_terminate(shell.display);
            return 0;
        }
        if (got > 0) shell.control_length += (size_t)got;
    }
    char *start = shell.control_buffer;
    char *newline;
    while ((newline = memchr(start, '\n', shell.control_length - (size_t)(start - shell.control_buffer)))) {
        *newline = 0;
        command(start);
        start = newline + 1;
    }
    size_t rest = shell.control_length - (size_t)(start - shell.control_buffer);
    if (rest == sizeof shell.control_buffer - 1) {
        shell_say("error: a control line longer than %zu bytes was dropped", sizeof shell.control_buffer - 2);
        rest = 0;
    }
    memmove(shell.control_buffer, start, rest);
    shell.control_length = rest;
    return 0;
}

void control_start(void) {
    shell.control_io = wl_event_loop_add_fd(shell.loop, STDIN_FILENO, WL_EVENT_READABLE, control_readable, NULL);
}
