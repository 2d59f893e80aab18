/* The scene from flowd turned into the picture: one slot per screen, in layers (the window's
 * content, then one per modal presentation, each over a dim), the visible screen of each layer
 * shown, the rest hidden; a motion between two scenes (push, pop, present, dismiss) slides one slot
 * in and one out; the chrome (header with back and title, tab bar) drawn with cairo and pango. */
#define _GNU_SOURCE
#include <cairo.h>
#include <drm_fourcc.h>
#include <pango/pangocairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xdg_shell.h>
#include "shell.h"

#define MAX_LAYERS 8

static struct wlr_scene_tree *layer_trees[MAX_LAYERS];
static uint64_t layer_visible[MAX_LAYERS]; /* the visible screen of each layer of the latest scene */
static int top_layer;
static int tab_layer = -1; /* the layer whose visible path has the tab bar shown (-1: none) */
static char header_drawn[256];
static char tabs_drawn[256];

static void layer_area(int layer, int *x, int *y, int *width, int *height);

/* ---- cairo images as scene buffers (wlroots 0.15 caches a buffer's texture: new pixels, new node) */

struct image {
    struct wlr_buffer base;
    cairo_surface_t *surface;
};

static void image_destroy(struct wlr_buffer *buffer) {
    struct image *image = wl_container_of(buffer, image, base);
    cairo_surface_destroy(image->surface);
    free(image);
}

static bool image_begin(struct wlr_buffer *buffer, uint32_t flags, void **data, uint32_t *format, size_t *stride) {
    (void)flags;
    struct image *image = wl_container_of(buffer, image, base);
    *data = cairo_image_surface_get_data(image->surface);
    *format = DRM_FORMAT_ARGB8888;
    *stride = (size_t)cairo_image_surface_get_stride(image->surface);
    return true;
}

static void image_end(struct wlr_buffer *buffer) { (void)buffer; }

static const struct wlr_buffer_impl image_implementation = {
    .destroy = image_destroy, .begin_data_ptr_access = image_begin, .end_data_ptr_access = image_end};

static struct image *image_create(int width, int height) {
    struct image *image = calloc(1, sizeof *image);
    if (!image) return NULL;
    image->surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
    wlr_buffer_init(&image->base, &image_implementation, width, height);
    return image;
}

static struct wlr_scene_node *image_place(struct image *image, int x, int y) {
    cairo_surface_flush(image->surface);
    struct wlr_scene_buffer *node = wlr_scene_buffer_create(&shell.chrome->node, &image->base);
    wlr_buffer_drop(&image->base); /* the node holds its own lock */
    if (!node) return NULL;
    wlr_scene_node_set_position(&node->node, x, y);
    return &node->node;
}

static void text(cairo_t *cr, const char *string, const char *font_name, double x, double y, double width, bool centred) {
    PangoLayout *layout = pango_cairo_create_layout(cr);
    PangoFontDescription *font = pango_font_description_from_string(font_name);
    pango_layout_set_font_description(layout, font);
    pango_layout_set_text(layout, string, -1);
    pango_layout_set_width(layout, (int)(width * PANGO_SCALE));
    pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
    if (centred) pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER);
    int text_height = 0;
    pango_layout_get_pixel_size(layout, NULL, &text_height);
    cairo_move_to(cr, x, y - text_height / 2.0);
    pango_cairo_show_layout(cr, layout);
    pango_font_description_free(font);
    g_object_unref(layout);
}

/* ---- the chrome */

/* A screen's title: its toplevel's, else its kind. */
const char *layout_screen_title(uint64_t screen) {
    struct view *view = view_for_screen(screen);
    if (view && view->xdg->toplevel && view->xdg->toplevel->title && *view->xdg->toplevel->title) return view->xdg->toplevel->title;
    struct slot *slot = slot_for_screen(screen);
    return slot && *slot->kind ? slot->kind : "";
}

static const char *visible_title(void) {
    const char *title = layout_screen_title(shell.visible);
    return *title || shell.connected ? title : "waiting for flowd";
}

/* A header bar `width` wide with `title` centred, at the top of `parent` (another output's window). */
struct wlr_scene_node *layout_title_bar(struct wlr_scene_tree *parent, int width, const char *title) {
    struct image *image = image_create(width, SHELL_HEADER);
    if (!image) return NULL;
    cairo_t *cr = cairo_create(image->surface);
    cairo_set_source_rgb(cr, 0.13, 0.15, 0.19);
    cairo_paint(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    text(cr, title, "Sans Bold 15", 12, SHELL_HEADER / 2.0, width - 24, true);
    if (*title) { /* the window's close button: a tap closes the window (CloseWindow), as its flow's parent decides */
        double centre = width - SHELL_HEADER / 2.0, arm = 9;
        cairo_set_line_width(cr, 2.5);
        cairo_move_to(cr, centre - arm, SHELL_HEADER / 2.0 - arm);
        cairo_line_to(cr, centre + arm, SHELL_HEADER / 2.0 + arm);
        cairo_move_to(cr, centre + arm, SHELL_HEADER / 2.0 - arm);
        cairo_line_to(cr, centre - arm, SHELL_HEADER / 2.0 + arm);
        cairo_stroke(cr);
    }
    cairo_destroy(cr);
    cairo_surface_flush(image->surface);
    struct wlr_scene_buffer *node = wlr_scene_buffer_create(&parent->node, &image->base);
    wlr_buffer_drop(&image->base);
    return node ? &node->node : NULL;
}

/* The chrome follows a held motion: while it waits for the entering screen, the whole picture stays
 * the old one (and draws no frame that would make the new screen's first one wait for the next). */
static void draw_header(void) {
    if (shell.motion.waiting) return;
    char key[256];
    snprintf(key, sizeof key, "%d|%d|%s|%d", shell.width, shell.back_applies + 2 * shell.in_modal + 4 * shell.visible_stacked, visible_title(), shell.connected);
    if (!strcmp(key, header_drawn) && shell.chrome_header) return;
    snprintf(header_drawn, sizeof header_drawn, "%s", key);
    if (shell.chrome_header) wlr_scene_node_destroy(shell.chrome_header);
    shell.chrome_header = NULL;
    struct image *image = image_create(shell.width, SHELL_HEADER);
    if (!image) return;
    cairo_t *cr = cairo_create(image->surface);
    cairo_set_source_rgb(cr, 0.13, 0.15, 0.19);
    cairo_paint(cr);
    if (shell.back_applies) {
        cairo_set_source_rgb(cr, 0.55, 0.75, 1.0);
        text(cr, shell.in_modal && !shell.visible_stacked ? "\xe2\x9c\x95 Close" : "\xe2\x80\xb9 Back", "Sans 14", 12, SHELL_HEADER / 2.0, 120, false);
    }
    cairo_set_source_rgb(cr, 1, 1, 1);
    text(cr, visible_title(), "Sans Bold 15", 140, SHELL_HEADER / 2.0, shell.width - 280, true);
    if (!shell.connected) {
        cairo_set_source_rgb(cr, 1.0, 0.7, 0.3);
        text(cr, "flowd away", "Sans 11", shell.width - 132, SHELL_HEADER / 2.0, 120, false);
    }
    cairo_destroy(cr);
    shell.chrome_header = image_place(image, 0, 0);
}

static void draw_tabs(void) {
    if (shell.motion.waiting) return;
    char key[256];
    int length = snprintf(key, sizeof key, "%d|%d|%d|%u|%u", shell.width, shell.height, tab_layer, shell.tab_count, shell.selected_tab);
    for (uint32_t index = 0; index < shell.tab_count && index < 16 && length < 200; index++) {
        struct slot *slot = slot_for_screen(shell.tab_bar_screens[index]);
        length += snprintf(key + length, sizeof key - (size_t)length, "|%s", slot ? slot->kind : "");
    }
    if (!strcmp(key, tabs_drawn) && (shell.chrome_tabs || shell.tab_count == 0)) return;
    snprintf(tabs_drawn, sizeof tabs_drawn, "%s", key);
    if (shell.chrome_tabs) wlr_scene_node_destroy(shell.chrome_tabs);
    shell.chrome_tabs = NULL;
    if (shell.tab_count == 0) return;
    int x, y, width, height;
    layer_area(tab_layer, &x, &y, &width, &height);
    struct image *image = image_create(width, SHELL_TABBAR);
    if (!image) return;
    cairo_t *cr = cairo_create(image->surface);
    cairo_set_source_rgb(cr, 0.13, 0.15, 0.19);
    cairo_paint(cr);
    double cell = (double)width / shell.tab_count;
    for (uint32_t index = 0; index < shell.tab_count; index++) {
        if (index == shell.selected_tab) {
            cairo_set_source_rgb(cr, 0.22, 0.26, 0.34);
            cairo_rectangle(cr, index * cell, 0, cell, SHELL_TABBAR);
            cairo_fill(cr);
        }
        struct slot *slot = index < 16 ? slot_for_screen(shell.tab_bar_screens[index]) : NULL;
        char label[80];
        snprintf(label, sizeof label, "%s", slot && *slot->kind ? slot->kind : "tab");
        cairo_set_source_rgb(cr, index == shell.selected_tab ? 0.55 : 0.8, index == shell.selected_tab ? 0.75 : 0.8,
                             index == shell.selected_tab ? 1.0 : 0.8);
        text(cr, label, "Sans 12", index * cell + 4, SHELL_TABBAR / 2.0, cell - 8, true);
    }
    cairo_destroy(cr);
    shell.chrome_tabs = image_place(image, x, y + height);
}

void layout_title_changed(void) {
    draw_header(); /* a header that changed damages the scene, which asks for a frame */
    windows_draw_titles();
}

/* ---- slots */

struct slot *slot_for_screen(uint64_t screen) {
    struct slot *slot;
    wl_list_for_each(slot, &shell.slots, link) {
        if (slot->screen == screen) return slot;
    }
    return NULL;
}

static void slot_destroy(struct slot *slot) {
    struct view *view = slot->view;
    if (view && view->node) view->node = NULL; /* destroyed with the slot's tree */
    wlr_scene_node_destroy(&slot->tree->node);
    wl_list_remove(&slot->link);
    free(slot);
}

/* The area of a layer: the window's content under the header (and over the tab bar), each modal
 * layer inset in the one under it. */
static void layer_area(int layer, int *x, int *y, int *width, int *height) {
    int bottom = shell.tab_count > 0 && layer == tab_layer ? SHELL_TABBAR : 0;
    int inset = layer * SHELL_MODAL_INSET;
    *x = inset;
    *y = SHELL_HEADER + inset;
    *width = shell.width - 2 * inset;
    *height = shell.height - SHELL_HEADER - bottom - 2 * inset;
    /* deep modals on a small output: never an empty or negative area */
    if (*width < 64) *width = 64;
    if (*height < 64) *height = 64;
}

static void configure(struct slot *slot) {
    int x, y, width, height;
    if (slot->window != 0) {
        x = 0, y = SHELL_HEADER;
        windows_area(slot->window, &width, &height); /* under its title: no other chrome there */
        height -= SHELL_HEADER;
    } else {
        layer_area(slot->layer, &x, &y, &width, &height);
    }
    slot->width = width;
    slot->height = height;
    /* wlroots 0.15 sends a configure for every set_size, and a client draws again for each: only a
     * new size is sent. */
    struct wlr_xdg_toplevel *toplevel = slot->view ? slot->view->xdg->toplevel : NULL;
    if (toplevel && (toplevel->scheduled.width != (uint32_t)width || toplevel->scheduled.height != (uint32_t)height)) {
        wlr_xdg_toplevel_set_size(slot->view->xdg, (uint32_t)width, (uint32_t)height);
    }
}

void layout_attach(struct view *view) {
    struct slot *slot = slot_for_screen(view->screen);
    if (!slot) {
        if (view->node) wlr_scene_node_destroy(view->node);
        view->node = NULL;
        return;
    }
    if (slot->view && slot->view != view && slot->view->node) {
        wlr_scene_node_destroy(slot->view->node);
        slot->view->node = NULL;
    }
    slot->view = view;
    if (!view->node) view->node = wlr_scene_xdg_surface_create(&slot->tree->node, view->xdg);
    configure(slot);
    wlr_xdg_toplevel_set_activated(view->xdg, true);
    layout_place();
}

/* Whether `screen` has something to show: its surface's frame, or the kept one. */
static bool has_frame(uint64_t screen) {
    struct slot *slot = slot_for_screen(screen);
    return slot && ((slot->view && slot->view->drawn && slot->view->node) || slot->kept);
}

/* A held motion runs from now; its first frame shows its first step already. */
static void motion_run(void) {
    if (!shell.motion.waiting) return;
    shell.motion.waiting = false;
    shell.motion.start_ms = shell_now_ms() - SHELL_FRAME_MS;
    wl_event_source_timer_update(shell.motion_wait, 0);
    draw_header();
    draw_tabs();
}

static int motion_wait_over(void *data) {
    (void)data;
    if (shell.motion.waiting) shell_say("motion: screen %llu has drawn nothing in %d ms; it moves in empty",
                                        (unsigned long long)shell.motion.entering, shell.hold_ms);
    motion_run();
    layout_place();
    return 0;
}

void layout_view_drawn(struct view *view) {
    view->drawn = true;
    if (shell.motion.waiting && view->screen == shell.motion.entering) motion_run();
    shell_trace("drawn", view->screen);
    struct slot *slot = slot_for_screen(view->screen);
    if (slot && slot->kept) {
        wlr_scene_node_destroy(&slot->kept->node);
        slot->kept = NULL;
        shell_say("drawn: screen %llu by its new surface", (unsigned long long)slot->screen);
    }
    if (view->screen == shell.visible) draw_header();
    else windows_draw_titles();
    layout_place();
}

/* ---- the scene */

struct walk {
    int layers;
};

/* The visible leaf under `node` (stack: its top, tab bar: its selected tab), not crossing modals. */
static const flowd_scene_node *visible_leaf(const flowd_scene_node *node, const flowd_scene_node **tab_bar,
                                            const flowd_scene_node **deepest_presenter) {
    while (node) {
        if (node->presented) *deepest_presenter = node;
        if (node->kind == FLOWD_NODE_SCREEN || node->child_count == 0) return node;
        if (node->kind == FLOWD_NODE_TAB_BAR) {
            *tab_bar = node; /* the innermost: the one flowd's select_tab acts on */
            uint32_t index = node->selected_tab < node->child_count ? node->selected_tab : 0;
            node = &node->children[index];
        } else {
            node = &node->children[node->child_count - 1];
        }
    }
    return NULL;
}

/* The tree a slot of `window` (at `layer` in the main window) hangs in. */
static struct wlr_scene_tree *slot_parent(int window, int layer) {
    return window == 0 ? layer_trees[layer < MAX_LAYERS ? layer : MAX_LAYERS - 1] : windows_tree(window);
}

static void take_screens(const flowd_scene_node *node, int layer, int depth, int window) {
    if (!node || depth > 64) return;
    if (node->kind == FLOWD_NODE_SCREEN) {
        struct slot *slot = slot_for_screen(node->id);
        if (!slot) {
            slot = calloc(1, sizeof *slot);
            if (!slot) return;
            slot->screen = node->id;
            slot->tree = wlr_scene_tree_create(&slot_parent(window, layer)->node);
            wl_list_insert(shell.slots.prev, &slot->link);
            slot->layer = layer;
            slot->window = window;
        }
        slot->in_scene = true;
        snprintf(slot->token, sizeof slot->token, "%s", node->display_token);
        /* Only a surface claimed with the current secret shows the screen: after a new Place (a
         * resume, a restored flowd) the old surface's frame is kept until it claims again. */
        if (slot->view && strcmp(slot->view->token, slot->token)) {
            struct view *stale = slot->view;
            views_keep_last_frame(stale, slot);
            if (stale->node) wlr_scene_node_destroy(stale->node);
            stale->node = NULL;
            stale->screen = 0;
            stale->token[0] = 0;
            slot->view = NULL;
        }
        struct view *view = slot->view ? NULL : view_for_screen(node->id);
        if (view && !strcmp(view->token, slot->token)) layout_attach(view);
        snprintf(slot->kind, sizeof slot->kind, "%s", node->screen_kind);
        if ((slot->layer != layer || slot->window != window) && layer < MAX_LAYERS) {
            slot->layer = layer;
            slot->window = window;
            wlr_scene_node_reparent(&slot->tree->node, &slot_parent(window, layer)->node);
        }
    }
    for (size_t index = 0; index < node->child_count; index++) take_screens(&node->children[index], layer, depth + 1, window);
    if (node->presented) take_screens(node->presented, layer + 1, depth + 1, window);
}

void layout_take_window(const flowd_scene_node *window, int index) {
    take_screens(window, 0, 0, index);
}

/* Whether `screen` is in a stack above its root (back applies), and the visible screen of what is
 * under it there (`*below`, 0 if none), which a back swipe uncovers. */
static bool stack_index_above_zero(const flowd_scene_node *root, uint64_t screen, uint64_t *below) {
    if (!root) return false;
    if (root->kind == FLOWD_NODE_STACK) {
        for (size_t index = 0; index < root->child_count; index++) {
            if (root->children[index].kind != FLOWD_NODE_SCREEN || root->children[index].id != screen) continue;
            if (index == 0) return false;
            const flowd_scene_node *bar = NULL, *presenter = NULL;
            const flowd_scene_node *leaf = visible_leaf(&root->children[index - 1], &bar, &presenter);
            *below = leaf && leaf->kind == FLOWD_NODE_SCREEN ? leaf->id : 0;
            return true;
        }
    }
    for (size_t index = 0; index < root->child_count; index++) {
        if (stack_index_above_zero(&root->children[index], screen, below)) return true;
    }
    return false;
}

void layout_apply(const flowd_scene *scene) {
    struct slot *slot, *next;
    wl_list_for_each(slot, &shell.slots, link) slot->in_scene = false;
    take_screens(scene->window, 0, 0, 0);
    windows_apply(scene);

    /* Layers along the visible path: a presentation on the path starts the next layer. */
    const flowd_scene_node *root = scene->window && scene->window->child_count ? &scene->window->children[0] : NULL;
    const flowd_scene_node *layer_root = root, *tab_bar = NULL;
    memset(layer_visible, 0, sizeof layer_visible);
    top_layer = 0;
    tab_layer = -1;
    const flowd_scene_node *top_root = root;
    for (int layer = 0; layer < MAX_LAYERS && layer_root; layer++) {
        const flowd_scene_node *presenter = NULL, *bar = NULL;
        const flowd_scene_node *leaf = visible_leaf(layer_root, &bar, &presenter);
        tab_bar = bar; /* the top layer's tab bar is the one the user can reach */
        tab_layer = bar ? layer : -1;
        layer_visible[layer] = leaf && leaf->kind == FLOWD_NODE_SCREEN ? leaf->id : 0;
        top_layer = layer;
        top_root = layer_root;
        if (!presenter) break;
        layer_root = presenter ? presenter->presented : NULL;
    }
    shell.visible = scene->visible_screen ? scene->visible_screen : layer_visible[top_layer];
    shell.in_modal = top_layer > 0;
    shell.below_visible = 0;
    shell.visible_stacked = stack_index_above_zero(top_root, shell.visible, &shell.below_visible);
    shell.back_applies = shell.in_modal || shell.visible_stacked;
    shell.tab_count = tab_bar ? (uint32_t)tab_bar->child_count : 0;
    shell.selected_tab = tab_bar ? tab_bar->selected_tab : 0;
    for (uint32_t index = 0; index < shell.tab_count && index < 16; index++) {
        const flowd_scene_node *presenter = NULL, *bar = NULL;
        const flowd_scene_node *leaf = visible_leaf(&tab_bar->children[index], &bar, &presenter);
        shell.tab_bar_screens[index] = leaf ? leaf->id : 0;
    }

    /* The motion: only an animated change of the visible screen moves; a committed swipe is
     * already where it ends. */
    struct motion motion = {0};
    bool swiped = shell.swipe.active && shell.swipe.screen == scene->from_screen;
    bool own = shell.own_back && scene->from_screen == shell.own_back
               && (scene->transition == FLOWD_TRANSITION_POP || scene->transition == FLOWD_TRANSITION_DISMISS);
    if (scene->transition != FLOWD_TRANSITION_NONE) shell.own_back = 0;
    if ((scene->animated || own) && !swiped && scene->from_screen != scene->to_screen) {
        motion.running = true;
        motion.start_ms = shell_now_ms();
        switch (scene->transition) {
        case FLOWD_TRANSITION_PUSH:
            motion.entering = scene->to_screen, motion.enter_dx = shell.width;
            motion.leaving = scene->from_screen, motion.leave_dx = -shell.width / 3;
            break;
        case FLOWD_TRANSITION_POP:
            motion.leaving = scene->from_screen, motion.leave_dx = shell.width;
            motion.entering = scene->to_screen, motion.enter_dx = -shell.width / 3;
            break;
        case FLOWD_TRANSITION_PRESENT:
            motion.entering = scene->to_screen, motion.enter_dy = shell.height;
            motion.dims = true, motion.dim_in = true;
            break;
        case FLOWD_TRANSITION_DISMISS:
            motion.leaving = scene->from_screen, motion.leave_dy = shell.height;
            motion.dims = true, motion.dim_in = false;
            break;
        default:
            motion.running = false;
        }
    }
    /* A push or a present whose screen has no frame yet holds the old picture (the motion at its
     * first step) until that frame comes, so nothing slides in empty; a screen that never draws
     * lets the motion run after --hold (500 ms). */
    if (motion.running && motion.entering && !has_frame(motion.entering)) {
        motion.waiting = true;
        wl_event_source_timer_update(shell.motion_wait, shell.hold_ms > 0 ? shell.hold_ms : 1);
    }
    /* A motion still running (or held) when the next scene changes the visible screen ends at once;
     * a scene that changes something else (transition NONE) leaves it running. */
    if (scene->transition != FLOWD_TRANSITION_NONE || !shell.motion.running) shell.motion = motion;
    if (swiped) shell.swipe.active = false;
    wl_list_for_each_safe(slot, next, &shell.slots, link) {
        bool moving = shell.motion.running && (slot->screen == shell.motion.leaving || slot->screen == shell.motion.entering);
        if (!slot->in_scene && !moving) slot_destroy(slot);
        else configure(slot);
    }
    draw_header();
    draw_tabs();
    layout_place();
}

static double eased(double progress) {
    if (progress >= 1) return 1;
    double inverse = 1 - progress;
    return 1 - inverse * inverse * inverse;
}

/* Whether `slot` is drawn now: the visible screen of its layer, or moving. */
static bool shown(const struct slot *slot) {
    if (slot->window != 0) return windows_shows(slot->window, slot->screen);
    if (shell.motion.running && (slot->screen == shell.motion.leaving || slot->screen == shell.motion.entering)) return true;
    if (shell.swipe.active && slot->layer == top_layer) {
        /* the swiped screen, and the one under it in its stack, which it uncovers */
        if (slot->screen == shell.swipe.screen) return true;
        if (shell.below_visible && slot->screen == shell.below_visible) return true;
    }
    return slot->in_scene && slot->layer <= top_layer && slot->layer < MAX_LAYERS && layer_visible[slot->layer] == slot->screen;
}

void layout_place(void) {
    double progress = !shell.motion.running ? 1
                      : shell.motion.waiting ? 0
                                             : eased((double)(shell_now_ms() - shell.motion.start_ms) / SHELL_ANIMATION_MS);
    struct slot *slot;
    wl_list_for_each(slot, &shell.slots, link) {
        bool enabled = shown(slot);
        wlr_scene_node_set_enabled(&slot->tree->node, enabled);
        if (!enabled) continue;
        if (slot->window != 0) {
            wlr_scene_node_set_position(&slot->tree->node, 0, SHELL_HEADER); /* its output's tree is in place */
            continue;
        }
        int x, y, width, height;
        layer_area(slot->layer, &x, &y, &width, &height);
        if (shell.motion.running && slot->screen == shell.motion.entering) {
            x += (int)(shell.motion.enter_dx * (1 - progress));
            y += (int)(shell.motion.enter_dy * (1 - progress));
            wlr_scene_node_raise_to_top(&slot->tree->node);
        } else if (shell.motion.running && slot->screen == shell.motion.leaving) {
            x += (int)(shell.motion.leave_dx * progress);
            y += (int)(shell.motion.leave_dy * progress);
            if (shell.motion.leave_dx > 0 || shell.motion.leave_dy > 0) wlr_scene_node_raise_to_top(&slot->tree->node);
        } else if (shell.swipe.active && slot->screen == shell.swipe.screen) {
            x += (int)(shell.swipe.progress * width);
            wlr_scene_node_raise_to_top(&slot->tree->node);
        } else if (shell.swipe.active && slot->screen == shell.below_visible) {
            x -= (int)((1 - shell.swipe.progress) * width / 3); /* as a pop moves it, following the finger */
        }
        wlr_scene_node_set_position(&slot->tree->node, x, y);
    }
    /* A dim over every layer under the top one. */
    for (int layer = 1; layer < MAX_LAYERS; layer++) {
        bool on = layer <= top_layer || (shell.motion.running && shell.motion.dims && !shell.motion.dim_in && layer == top_layer + 1);
        float alpha = 0.5f;
        if (shell.motion.running && shell.motion.dims && layer == (shell.motion.dim_in ? top_layer : top_layer + 1)) {
            alpha = (float)(0.5 * (shell.motion.dim_in ? progress : 1 - progress));
        }
        on = on && alpha > 0;
        wlr_scene_node_set_enabled(&shell.dims[layer]->node, on);
        if (!on) continue;
        float colour[4] = {0, 0, 0, alpha};
        wlr_scene_rect_set_color(shell.dims[layer], colour);
        wlr_scene_rect_set_size(shell.dims[layer], shell.width, shell.height - SHELL_HEADER);
        wlr_scene_node_set_position(&shell.dims[layer]->node, 0, SHELL_HEADER);
    }
    wlr_scene_rect_set_size(shell.background, shell.width, shell.height);
    /* Keys go to the visible screen only. */
    struct view *view = view_for_screen(shell.visible);
    struct wlr_surface *focus = view && view->node ? view->xdg->surface : NULL;
    if (focus && shell.seat->keyboard_state.focused_surface != focus) {
        wlr_seat_keyboard_notify_enter(shell.seat, focus, NULL, 0, NULL);
    } else if (!focus && shell.seat->keyboard_state.focused_surface) {
        wlr_seat_keyboard_notify_clear_focus(shell.seat);
    }
    /* No frame is asked for here: what changed damaged the scene, and the damage asks for one. A
     * frame asked for with nothing new would start the 16 ms frame clock for nothing, and the
     * next screen's first frame would wait for it. */
}

bool layout_tick(uint64_t now) {
    if (!shell.motion.running || shell.motion.waiting) return false;
    if (now - shell.motion.start_ms >= SHELL_ANIMATION_MS) {
        shell.motion.running = false;
        struct slot *slot, *next;
        wl_list_for_each_safe(slot, next, &shell.slots, link) {
            if (!slot->in_scene) slot_destroy(slot);
        }
    }
    layout_place();
    return shell.motion.running;
}

void layout_visible_area(int *x, int *y, int *width, int *height) {
    layer_area(top_layer, x, y, width, height);
}

int layout_tab_at(double px, double py) {
    if (shell.tab_count == 0 || tab_layer < 0) return -1;
    int x, y, width, height;
    layer_area(tab_layer, &x, &y, &width, &height);
    if (px < x || px >= x + width || py < y + height || py >= y + height + SHELL_TABBAR) return -1;
    return (int)((px - x) * shell.tab_count / width);
}

bool layout_visible_drawn(void) {
    struct slot *slot = slot_for_screen(shell.visible);
    return slot && slot->view && slot->view->drawn && slot->view->node;
}

bool layout_settled(const char **why) {
    if (shell.motion.running) {
        *why = "moving";
        return false;
    }
    struct slot *slot = slot_for_screen(shell.visible);
    if (shell.visible && (!slot || ((!slot->view || !slot->view->drawn) && !slot->kept))) {
        *why = "waiting for the visible screen's first frame";
        return false;
    }
    *why = "";
    return true;
}

void layout_init(void) {
    float background[4] = {0.08f, 0.08f, 0.09f, 1};
    shell.background = wlr_scene_rect_create(&shell.scene->node, shell.width, shell.height, background);
    shell.layers = wlr_scene_tree_create(&shell.scene->node);
    for (int layer = 0; layer < MAX_LAYERS; layer++) {
        layer_trees[layer] = wlr_scene_tree_create(&shell.layers->node);
        float dim[4] = {0, 0, 0, 0.5f};
        shell.dims[layer] = wlr_scene_rect_create(&layer_trees[layer]->node, shell.width, shell.height, dim);
        wlr_scene_node_set_enabled(&shell.dims[layer]->node, false);
    }
    shell.chrome = wlr_scene_tree_create(&shell.scene->node);
    shell.motion_wait = wl_event_loop_add_timer(shell.loop, motion_wait_over, NULL);
    draw_header();
}
