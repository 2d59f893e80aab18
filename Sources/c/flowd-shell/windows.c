/* Windows flows opened on other displays (docs/shell.md, "Several displays"): the first output shows
 * the app's main window (layout.c); each further output shows one window a flow opened, the one
 * whose display --displays names for it (by default the windows in the order flows opened them).
 * Its visible screen fills the output: a customer's display, a cluster, has no chrome of the shell.
 * Each output has its own frame clock, as the first (main.c). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wlr/interfaces/wlr_output.h>
#include <wlr/render/allocator.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_damage.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_screencopy_v1.h>
#include "shell.h"

#define MAX_OUTPUTS 8

struct window_output {
    struct wlr_output *output;
    struct wlr_scene_tree *tree; /* at the output's place in the layout */
    struct wl_listener frame, destroy;
    struct wl_event_source *vblank;
    uint64_t window;  /* the window it shows (0: none) */
    uint64_t visible; /* that window's visible screen */
    char display[64]; /* the display it draws: from --displays, else the window's */
    int x;
    struct wlr_scene_node *title; /* its title bar */
    char title_drawn[160];
};

static struct window_output outputs[MAX_OUTPUTS];
static int output_count;
static char names[MAX_OUTPUTS][64];
static int name_count;
static struct wlr_scene_tree *unshown; /* slots of windows no output shows: claimed, never drawn */

bool windows_set_names(const char *list) {
    name_count = 0;
    const char *start = list;
    while (*start) {
        const char *end = strchr(start, ',');
        size_t length = end ? (size_t)(end - start) : strlen(start);
        if (length == 0 || length >= sizeof names[0] || name_count == MAX_OUTPUTS) {
            fprintf(stderr, "flowd-shell: --displays takes up to %d names of 1 to %zu bytes, comma-separated, got '%s'\n",
                    MAX_OUTPUTS, sizeof names[0] - 1, list);
            return false;
        }
        memcpy(names[name_count], start, length);
        names[name_count++][length] = 0;
        start = end ? end + 1 : start + length;
    }
    return true;
}

static void frame(struct wl_listener *listener, void *data) {
    (void)data;
    struct window_output *shown = wl_container_of(listener, shown, frame);
    struct wlr_scene_output *scene_output = wlr_scene_get_scene_output(shell.scene, shown->output);
    /* As the first output's: a frame only for what shows, or for a screenshot waiting. */
    if (pixman_region32_not_empty(&scene_output->damage->current) || !wl_list_empty(&shell.screencopy->frames)) {
        wlr_scene_output_commit(scene_output);
    }
    if (shell.headless && shown->output->frame_pending) wl_event_source_timer_update(shown->vblank, SHELL_FRAME_MS);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    wlr_scene_output_send_frame_done(scene_output, &now);
}

static int vblank(void *data) {
    struct window_output *shown = data;
    if (shown->output) wlr_output_send_frame(shown->output);
    return 0;
}

static void destroyed(struct wl_listener *listener, void *data) {
    (void)data;
    struct window_output *shown = wl_container_of(listener, shown, destroy);
    wl_list_remove(&shown->frame.link);
    wl_list_remove(&shown->destroy.link);
    wl_event_source_remove(shown->vblank);
    shown->vblank = NULL;
    shown->output = NULL;
    wlr_scene_node_set_enabled(&shown->tree->node, false);
    shell_say("output: %s is gone; the window on it is not drawn", shown->display[0] ? shown->display : "(none)");
    flowd_provide_displays();
}

bool windows_add_output(struct wlr_output *output) {
    if (output_count == MAX_OUTPUTS) return false;
    struct window_output *shown = &outputs[output_count];
    wlr_output_init_render(output, shell.allocator, shell.renderer);
    struct wlr_output_mode *mode = wlr_output_preferred_mode(output);
    if (mode && !shell.headless) wlr_output_set_mode(output, mode);
    else wlr_output_set_custom_mode(output, shell.width, shell.height, shell.headless ? 1 : 0);
    wlr_output_enable(output, true);
    if (!wlr_output_commit(output)) {
        fprintf(stderr, "flowd-shell: the output %s could not be enabled\n", output->name);
        return false;
    }
    shown->output = output;
    shell_advertise_refresh(output);
    wlr_output_layout_add_auto(shell.layout, output);
    struct wlr_box *box = wlr_output_layout_get_box(shell.layout, output);
    shown->x = box ? box->x : 0;
    shown->tree = wlr_scene_tree_create(&shell.scene->node);
    wlr_scene_node_set_position(&shown->tree->node, shown->x, box ? box->y : 0);
    shown->frame.notify = frame;
    wl_signal_add(&output->events.frame, &shown->frame);
    shown->destroy.notify = destroyed;
    wl_signal_add(&output->events.destroy, &shown->destroy);
    shown->vblank = wl_event_loop_add_timer(shell.loop, vblank, shown);
    wlr_output_create_global(output);
    output_count++;
    shell_say("output: %s for the display %s", output->name, output_count <= name_count ? names[output_count - 1] : "(the next window opened)");
    flowd_provide_displays();
    return true;
}

int windows_provided(flowd_provided_display *into, int max) {
    int count = 0;
    if (shell.output && count < max)
        into[count++] = (flowd_provided_display){"main", shell.output->name, (uint32_t)shell.output->width, (uint32_t)shell.output->height};
    for (int index = 0; index < output_count; index++) {
        struct wlr_output *output = outputs[index].output;
        if (!output) continue;
        if (index >= name_count) return -1; /* shows whichever window comes next: any display */
        if (count < max) into[count++] = (flowd_provided_display){names[index], output->name, (uint32_t)output->width, (uint32_t)output->height};
    }
    return count;
}

/* Which window each output shows: the one of its --displays name, else the windows in order. */
void windows_apply(const flowd_scene *scene) {
    if (!unshown) {
        unshown = wlr_scene_tree_create(&shell.scene->node);
        wlr_scene_node_set_enabled(&unshown->node, false);
    }
    for (int index = 0; index < output_count; index++) outputs[index].window = outputs[index].visible = 0;
    int next = 0;
    for (size_t at = 0; at < scene->other_window_count; at++) {
        const flowd_scene_window *window = &scene->other_windows[at];
        int index = -1;
        for (int named = 0; named < name_count && named < output_count; named++) {
            if (!strcmp(names[named], window->display)) index = named;
        }
        if (index < 0 && name_count == 0) {
            while (next < output_count && outputs[next].window) next++;
            if (next < output_count) index = next;
        }
        if (index >= 0 && !outputs[index].window) {
            outputs[index].window = window->window->id;
            outputs[index].visible = window->visible_screen;
            snprintf(outputs[index].display, sizeof outputs[index].display, "%s", window->display);
            layout_take_window(window->window, index + 1);
        } else {
            layout_take_window(window->window, -1); /* no output for it: its screens may claim, nothing shows */
        }
    }
    windows_draw_titles();
}

void windows_draw_titles(void) {
    for (int index = 0; index < output_count; index++) {
        struct window_output *shown = &outputs[index];
        if (!shown->output || !shown->tree) continue;
        const char *title = shown->window ? layout_screen_title(shown->visible) : "";
        if (shown->title && !strcmp(title, shown->title_drawn)) continue;
        snprintf(shown->title_drawn, sizeof shown->title_drawn, "%s", title);
        if (shown->title) wlr_scene_node_destroy(shown->title);
        shown->title = layout_title_bar(shown->tree, shown->output->width > 0 ? shown->output->width : shell.width, title);
    }
}

struct wlr_scene_tree *windows_tree(int window) {
    return window > 0 && window <= output_count ? outputs[window - 1].tree : unshown;
}

bool windows_shows(int window, uint64_t screen) {
    return window > 0 && window <= output_count && outputs[window - 1].output && outputs[window - 1].visible == screen;
}

void windows_area(int window, int *width, int *height) {
    struct wlr_output *output = window > 0 && window <= output_count ? outputs[window - 1].output : NULL;
    *width = output && output->width > 0 ? output->width : shell.width;
    *height = output && output->height > 0 ? output->height : shell.height;
}

int windows_layout_width(void) {
    int right = shell.width;
    for (int index = 0; index < output_count; index++) {
        if (outputs[index].output && outputs[index].x + outputs[index].output->width > right) {
            right = outputs[index].x + outputs[index].output->width;
        }
    }
    return right;
}

void windows_state(char *line, size_t size) {
    size_t length = strlen(line);
    for (int index = 0; index < output_count && length + 64 < size; index++) {
        length += (size_t)snprintf(line + length, size - length, " output%d=%s:%llu", index + 2,
                                   outputs[index].display[0] ? outputs[index].display : "-", (unsigned long long)outputs[index].visible);
    }
}

void windows_schedule_frames(void) {
    for (int index = 0; index < output_count; index++) {
        if (outputs[index].output) wlr_output_schedule_frame(outputs[index].output);
    }
}

bool windows_close_at(double x, double y) {
    if (y >= SHELL_HEADER) return false;
    for (int index = 0; index < output_count; index++) {
        struct window_output *shown = &outputs[index];
        if (!shown->output || !shown->window || !shown->visible) continue;
        int right = shown->x + shown->output->width;
        if (x < shown->x || x >= right) continue;
        if (x >= right - SHELL_HEADER) flowd_close_window(shown->visible, FLOWD_PHASE_IMMEDIATE);
        return true; /* the title bar takes the tap */
    }
    return false;
}

uint64_t windows_visible(int output) {
    int index = output - 2;
    return index >= 0 && index < output_count && outputs[index].output ? outputs[index].visible : 0;
}
