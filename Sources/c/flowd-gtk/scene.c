/* flowd's navigation model as GTK 4 widgets (scene.h). The model is the screens flowd placed, each
 * with its path from the window; sync() derives every widget from those paths, so a resume, a
 * restore or a restarted process that places the same screens again draws the same widgets. */
#include "scene-parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gpointer id_pointer(uint64_t id) { return (gpointer)(uintptr_t)id; }
uint64_t id_of(gpointer object, const char *key) { return (uint64_t)(uintptr_t)g_object_get_data(object, key); }

/* ---- Lookups -------------------------------------------------------------------------------- */

shown *find_shown(scene *sc, uint64_t id) {
    for (guint i = 0; i < sc->screens->len; i++) {
        shown *s = g_ptr_array_index(sc->screens, i);
        if (s->id == id) return s;
    }
    return NULL;
}

part *find_part(scene *sc, uint64_t id) {
    for (guint i = 0; i < sc->parts->len; i++) {
        part *p = g_ptr_array_index(sc->parts, i);
        if (p->id == id) return p;
    }
    return NULL;
}

static frame *find_frame(scene *sc, uint64_t flowd_window, uint64_t root) {
    for (guint i = 0; i < sc->frames->len; i++) {
        frame *f = g_ptr_array_index(sc->frames, i);
        if (f->flowd_window == flowd_window && f->root == root) return f;
    }
    return NULL;
}

/* The flowd window a screen is in: 0 for the main one, else the id of a window a flow opened on a
 * display (its path's first step names the display). */
static uint64_t window_of(const shown *s) {
    return s->display ? s->path[0].id : 0;
}

/* The desktop window a widget belongs to (its "flowd-window" and "flowd-frame" keys). */
static frame *frame_of(scene *sc, gpointer object) {
    return find_frame(sc, id_of(object, "flowd-window"), id_of(object, "flowd-frame"));
}

/* The modal presentation a screen is in (its last presented path element), 0 for the main window. */
static uint64_t frame_root_of(const shown *s) {
    uint64_t root = 0;
    for (size_t i = 0; i < s->path_count; i++)
        if (s->path[i].presented) root = s->path[i].id;
    return root;
}

static int stack_index_of(const shown *s) {
    flowd_placement placement = {.path = s->path, .path_count = s->path_count};
    return flowd_placement_stack_index(&placement);
}

/* The front desktop window of a flowd window: its newest modal one, else the window itself. */
frame *front_of(scene *sc, uint64_t flowd_window) {
    for (guint i = sc->frames->len; i-- > 0;) {
        frame *f = g_ptr_array_index(sc->frames, i);
        if (f->flowd_window == flowd_window) return f;
    }
    return NULL;
}

/* The window in front for the test channel: the main window's newest modal one, else the main window. */
frame *front_frame(scene *sc) {
    return front_of(sc, 0);
}

/* ---- The model: what flowd says ------------------------------------------------------------- */

static void shown_free(gpointer data) {
    shown *s = data;
    g_free(s->kind);
    card_free(&s->state);
    g_free(s->path);
    g_free(s->display);
    g_free(s);
}

static void set_path(shown *s, const flowd_placement *placement) {
    g_free(s->path);
    s->path = g_memdup2(placement->path, placement->path_count * sizeof *placement->path);
    s->path_count = placement->path_count;
    g_free(s->display);
    s->display = s->path_count && s->path[0].display && *s->path[0].display ? g_strdup(s->path[0].display) : NULL;
    for (size_t i = 0; i < s->path_count; i++) s->path[i].display = NULL; /* the library's memory, gone after the callback */
    s->visible = placement->visible;
}

/* The state as a card, or a refusal to flowd (not acked: flowd reports SCREEN_REFUSED). */
static bool take_state(flowd_screen_host *host, shown *s, const flowd_payload *state, uint64_t serial) {
    card decoded;
    char why[200];
    if (card_decode(state->data, state->size, &decoded, why, sizeof why) < 0) {
        char message[300];
        snprintf(message, sizeof message, "kind \"%s\": %s", s->kind, why);
        flowd_screen_defer_ack(host);
        flowd_screen_refuse(host, s->id, serial, message, NULL);
        static const uint8_t nothing[1];
        if (!s->state.title) card_decode(nothing, 0, &s->state, why, sizeof why); /* a new screen: an empty card */
        return false;
    }
    card_free(&s->state);
    s->state = decoded;
    s->dirty = true;
    return true;
}

void scene_placed(flowd_screen_host *host, const flowd_place *place, void *user) {
    scene *sc = user;
    shown *s = find_shown(sc, place->screen_id);
    if (!s) {
        s = g_new0(shown, 1);
        s->id = place->screen_id;
        g_ptr_array_add(sc->screens, s);
    }
    g_free(s->kind);
    s->kind = g_strdup(place->kind);
    set_path(s, &place->placement);
    take_state(host, s, &place->state, place->serial);
    sc->animate |= place->animated;
    fprintf(stderr, "flowd-gtk: drew screen %llu (%s) '%s'\n", (unsigned long long)s->id, s->kind,
            s->state.title ? s->state.title : "");
}

void scene_updated(flowd_screen_host *host, const flowd_update *update, void *user) {
    scene *sc = user;
    shown *s = find_shown(sc, update->screen_id);
    if (s) take_state(host, s, &update->state, update->serial);
}

void scene_placement_changed(flowd_screen_host *host, const flowd_placement_changed *change, void *user) {
    (void)host;
    scene *sc = user;
    shown *s = find_shown(sc, change->screen_id);
    if (s) set_path(s, &change->placement);
}

void scene_dismissed(flowd_screen_host *host, const flowd_dismiss *dismiss, void *user) {
    (void)host;
    scene *sc = user;
    shown *s = find_shown(sc, dismiss->screen_id);
    if (!s) return;
    /* A person's back or close already moved the view: the slide back is drawn without animation. */
    sc->animate |= dismiss->animated && dismiss->reason != FLOWD_DISMISS_USER_NAVIGATION;
    g_ptr_array_remove(sc->screens, s);
}

/* ---- What a person does --------------------------------------------------------------------- */

static void report(scene *sc, int sent, const flowd_error *error) {
    if (sent < 0) fprintf(stderr, "flowd-gtk: %s: %s\n", flowd_error_name(error->code), error->message);
    if (sc->sent) sc->sent(sc->sent_user);
}

/* Sends the entry's text when flowd does not have it yet (what the person typed without Enter), and
 * remembers it as sent, so a second press does not send it again. */
static void send_text(scene *sc, GtkWidget *entry) {
    uint64_t id = id_of(entry, ID_KEY);
    shown *s = find_shown(sc, id);
    const char *sent = g_object_get_data(G_OBJECT(entry), "flowd-sent");
    const char *typed = gtk_editable_get_text(GTK_EDITABLE(entry));
    char *json = card_pending_text_json(typed, sent ? sent : (s ? s->state.text : NULL));
    if (!json) return;
    flowd_error error;
    report(sc, flowd_screen_send_json(sc->host, id, json, &error), &error);
    free(json);
    g_object_set_data_full(G_OBJECT(entry), "flowd-sent", g_strdup(typed), g_free);
}

/* A button sends the text typed into its card's field first (docs/demo.md, "Screen contracts"). */
static void pressed(GtkButton *button, gpointer user) {
    scene *sc = user;
    for (GtkWidget *c = gtk_widget_get_first_child(gtk_widget_get_parent(GTK_WIDGET(button))); c; c = gtk_widget_get_next_sibling(c))
        if (GTK_IS_ENTRY(c)) send_text(sc, c);
    flowd_error error;
    char *json = card_press_json((size_t)id_of(button, "flowd-index"));
    report(sc, flowd_screen_send_json(sc->host, id_of(button, ID_KEY), json, &error), &error);
    free(json);
}

/* Enter sends the text, even unchanged (as the terminal's Enter does). */
static void entered(GtkEntry *entry, gpointer user) {
    scene *sc = user;
    flowd_error error;
    const char *typed = gtk_editable_get_text(GTK_EDITABLE(entry));
    char *json = card_text_json(typed);
    report(sc, flowd_screen_send_json(sc->host, id_of(entry, ID_KEY), json, &error), &error);
    free(json);
    g_object_set_data_full(G_OBJECT(entry), "flowd-sent", g_strdup(typed), g_free);
}

/* Back and close are gestures flowd hears begin and then commit, as a swipe would say them. */
static const char *navigate(scene *sc, frame *f, bool close) {
    shown *s = find_shown(sc, f->front);
    if (!s) return "no screen in front";
    flowd_error error;
    int (*gesture)(flowd_screen_host *, uint64_t, flowd_phase, flowd_error *) =
        close ? flowd_screen_close_modal : flowd_screen_back;
    if (!close && stack_index_of(s) <= 0) return "back does not apply: the screen is its stack's root";
    if (close && !f->root) return "close does not apply: no modal presentation";
    if (gesture(sc->host, s->id, FLOWD_PHASE_BEGIN, &error) < 0 || gesture(sc->host, s->id, FLOWD_PHASE_COMMIT, &error) < 0) {
        report(sc, -1, &error);
        return "flowd could not be told";
    }
    return NULL;
}

static void back_clicked(GtkButton *button, gpointer user) {
    scene *sc = user;
    frame *f = frame_of(sc, button);
    if (f) navigate(sc, f, false);
}

/* Closing a window a flow opened: flowd hears the user close it (begin, commit); the flow decides. */
static const char *close_window(scene *sc, frame *f) {
    shown *s = find_shown(sc, f->front);
    if (!s) return "no screen in the window";
    flowd_error error;
    if (flowd_screen_close_window(sc->host, s->id, FLOWD_PHASE_BEGIN, &error) < 0 ||
        flowd_screen_close_window(sc->host, s->id, FLOWD_PHASE_COMMIT, &error) < 0) {
        report(sc, -1, &error);
        return "flowd could not be told";
    }
    return NULL;
}

static gboolean close_requested(GtkWindow *window, gpointer user) {
    scene *sc = user;
    frame *f = frame_of(sc, window);
    if (f && f->root) navigate(sc, f, true);
    else if (f && f->flowd_window) close_window(sc, f);
    return f && (f->root || f->flowd_window); /* it stays until flowd dismisses its screens */
}

const char *escape_in(scene *sc, frame *f) {
    shown *s = find_shown(sc, f->front);
    if (s && stack_index_of(s) > 0) return navigate(sc, f, false);
    if (f->root) return navigate(sc, f, true);
    return "Escape does nothing here";
}

static gboolean key_pressed(GtkEventControllerKey *controller, guint key, guint code, GdkModifierType state, gpointer user) {
    (void)code;
    (void)state;
    scene *sc = user;
    if (key != GDK_KEY_Escape) return FALSE;
    GtkWidget *window = gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(controller));
    frame *f = frame_of(sc, window);
    if (f) escape_in(sc, f);
    return TRUE;
}

/* A tab chosen on the switcher: flowd selects it (its PlacementChanged confirms it). */
static void tab_switched(GObject *stack, GParamSpec *spec, gpointer user) {
    (void)spec;
    scene *sc = user;
    if (sc->syncing) return;
    GtkWidget *child = gtk_stack_get_visible_child(GTK_STACK(stack));
    uint64_t tab_bar = id_of(stack, ID_KEY);
    if (!child) return;
    uint32_t index = (uint32_t)id_of(child, "flowd-index");
    for (guint i = 0; i < sc->screens->len; i++) {
        shown *s = g_ptr_array_index(sc->screens, i);
        for (size_t j = 0; j < s->path_count; j++)
            if (s->path[j].id == tab_bar) {
                flowd_error error;
                report(sc, flowd_screen_select_tab(sc->host, s->id, index, &error), &error);
                return;
            }
    }
}

/* ---- Widgets ---------------------------------------------------------------------------------- */

static void fill_card(scene *sc, part *p, shown *s) {
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(p->widget))) gtk_box_remove(GTK_BOX(p->widget), child);
    GtkWidget *title = gtk_label_new(s->state.title);
    gtk_widget_add_css_class(title, "title-2");
    gtk_label_set_xalign(GTK_LABEL(title), 0);
    gtk_box_append(GTK_BOX(p->widget), title);
    if (*s->state.body) {
        GtkWidget *body = gtk_label_new(s->state.body);
        gtk_label_set_wrap(GTK_LABEL(body), TRUE);
        gtk_label_set_xalign(GTK_LABEL(body), 0);
        gtk_box_append(GTK_BOX(p->widget), body);
    }
    if (s->state.field) {
        GtkWidget *entry = gtk_entry_new();
        gtk_entry_set_placeholder_text(GTK_ENTRY(entry), s->state.field);
        gtk_editable_set_text(GTK_EDITABLE(entry), s->state.text ? s->state.text : "");
        g_object_set_data(G_OBJECT(entry), ID_KEY, id_pointer(s->id));
        g_signal_connect(entry, "activate", G_CALLBACK(entered), sc);
        gtk_box_append(GTK_BOX(p->widget), entry);
    }
    for (size_t i = 0; i < s->state.button_count; i++) {
        GtkWidget *button = gtk_button_new_with_label(s->state.buttons[i]);
        g_object_set_data(G_OBJECT(button), ID_KEY, id_pointer(s->id));
        g_object_set_data(G_OBJECT(button), "flowd-index", id_pointer(i));
        g_signal_connect(button, "clicked", G_CALLBACK(pressed), sc);
        gtk_box_append(GTK_BOX(p->widget), button);
    }
    s->dirty = false;
}

static part *ensure_part(scene *sc, const flowd_path_step *step) {
    part *p = find_part(sc, step->id);
    if (p) return p;
    p = g_new0(part, 1);
    p->id = step->id;
    switch (step->kind) {
    case FLOWD_NODE_STACK:
        p->kind = PART_STACK;
        p->widget = p->stack = gtk_stack_new();
        gtk_stack_set_transition_duration(GTK_STACK(p->stack), 200);
        break;
    case FLOWD_NODE_TAB_BAR: {
        p->kind = PART_TABS;
        p->widget = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        p->stack = gtk_stack_new();
        gtk_widget_set_vexpand(p->stack, TRUE);
        GtkWidget *switcher = gtk_stack_switcher_new();
        gtk_stack_switcher_set_stack(GTK_STACK_SWITCHER(switcher), GTK_STACK(p->stack));
        gtk_widget_set_halign(switcher, GTK_ALIGN_CENTER);
        gtk_widget_set_margin_top(switcher, 6);
        gtk_box_append(GTK_BOX(p->widget), switcher);
        gtk_box_append(GTK_BOX(p->widget), p->stack);
        g_signal_connect(p->stack, "notify::visible-child", G_CALLBACK(tab_switched), sc);
        break;
    }
    default: /* a screen, or a kind this host does not know: drawn as a card */
        p->kind = PART_CARD;
        p->widget = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
        gtk_widget_set_margin_start(p->widget, 24);
        gtk_widget_set_margin_end(p->widget, 24);
        gtk_widget_set_margin_top(p->widget, 24);
        gtk_widget_set_margin_bottom(p->widget, 24);
        break;
    }
    g_object_ref_sink(p->widget);
    g_object_set_data(G_OBJECT(p->widget), ID_KEY, id_pointer(p->id));
    if (p->stack != p->widget && p->stack) g_object_set_data(G_OBJECT(p->stack), ID_KEY, id_pointer(p->id));
    g_ptr_array_add(sc->parts, p);
    return p;
}

static void detach(part *p) {
    if (!p->owner) return;
    if (GTK_IS_STACK(p->owner))
        gtk_stack_remove(GTK_STACK(p->owner), p->widget);
    else
        gtk_box_remove(GTK_BOX(p->owner), p->widget);
    p->owner = NULL;
}

static void attach(part *p, GtkWidget *owner) {
    if (p->owner == owner) return;
    detach(p);
    if (GTK_IS_STACK(owner)) {
        char name[32];
        snprintf(name, sizeof name, "%llu", (unsigned long long)p->id);
        gtk_stack_add_titled(GTK_STACK(owner), p->widget, name, name);
    } else {
        gtk_box_append(GTK_BOX(owner), p->widget);
    }
    p->owner = owner;
}

static frame *new_frame(scene *sc, uint64_t flowd_window, const char *display, uint64_t root, const char *title) {
    frame *f = g_new0(frame, 1);
    f->flowd_window = flowd_window;
    f->display = g_strdup(display);
    f->root = root;
    f->window = gtk_window_new();
    g_object_set_data(G_OBJECT(f->window), "flowd-window", id_pointer(flowd_window));
    g_object_set_data(G_OBJECT(f->window), "flowd-frame", id_pointer(root));
    gtk_window_set_default_size(GTK_WINDOW(f->window), root ? 380 : 440, root ? 420 : 520);
    GtkWidget *header = gtk_header_bar_new();
    f->back = gtk_button_new_from_icon_name("go-previous-symbolic");
    gtk_widget_set_tooltip_text(f->back, "Back");
    g_object_set_data(G_OBJECT(f->back), "flowd-window", id_pointer(flowd_window));
    g_object_set_data(G_OBJECT(f->back), "flowd-frame", id_pointer(root));
    g_signal_connect(f->back, "clicked", G_CALLBACK(back_clicked), sc);
    gtk_header_bar_pack_start(GTK_HEADER_BAR(header), f->back);
    f->title = gtk_label_new(title);
    gtk_widget_add_css_class(f->title, "title");
    gtk_header_bar_set_title_widget(GTK_HEADER_BAR(header), f->title);
    gtk_window_set_titlebar(GTK_WINDOW(f->window), header);
    f->content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_window_set_child(GTK_WINDOW(f->window), f->content);
    GtkEventController *keys = gtk_event_controller_key_new();
    g_signal_connect(keys, "key-pressed", G_CALLBACK(key_pressed), sc);
    gtk_widget_add_controller(f->window, keys);
    g_signal_connect(f->window, "close-request", G_CALLBACK(close_requested), sc);
    if (root) { /* a modal presentation: over its own window */
        frame *under = find_frame(sc, flowd_window, 0);
        gtk_window_set_transient_for(GTK_WINDOW(f->window), GTK_WINDOW(under->window));
        gtk_window_set_modal(GTK_WINDOW(f->window), TRUE);
    }
    g_ptr_array_add(sc->frames, f);
    gtk_window_present(GTK_WINDOW(f->window));
    return f;
}

scene *scene_new(flowd_screen_host *host, const char *title) {
    scene *sc = g_new0(scene, 1);
    sc->host = host;
    sc->screens = g_ptr_array_new_with_free_func(shown_free);
    sc->parts = g_ptr_array_new();
    sc->frames = g_ptr_array_new();
    sc->selected_tab = g_hash_table_new(g_direct_hash, g_direct_equal);
    frame *main = new_frame(sc, 0, NULL, 0, title);
    gtk_widget_set_visible(main->back, FALSE);
    return sc;
}

void scene_set_host(scene *sc, flowd_screen_host *host) {
    sc->host = host;
}

void scene_on_sent(scene *sc, void (*sent)(void *), void *user) {
    sc->sent = sent;
    sc->sent_user = user;
}

GtkWidget *scene_main_window(scene *sc) {
    return ((frame *)g_ptr_array_index(sc->frames, 0))->window;
}

void scene_free(scene *sc) {
    for (guint i = 0; i < sc->parts->len; i++) {
        part *p = g_ptr_array_index(sc->parts, i);
        g_object_unref(p->widget);
        g_free(p);
    }
    for (guint i = 0; i < sc->frames->len; i++) {
        frame *f = g_ptr_array_index(sc->frames, i);
        gtk_window_destroy(GTK_WINDOW(f->window));
        g_free(f->display);
        g_free(f);
    }
    g_ptr_array_free(sc->parts, TRUE);
    g_ptr_array_free(sc->frames, TRUE);
    g_ptr_array_free(sc->screens, TRUE);
    g_hash_table_destroy(sc->selected_tab);
    g_free(sc);
}

/* ---- Sync: the widgets from the model --------------------------------------------------------- */

/* The title a tab shows: its root screen's title. */
static const char *tab_title(scene *sc, uint64_t child) {
    const shown *best = NULL;
    for (guint i = 0; i < sc->screens->len; i++) {
        shown *s = g_ptr_array_index(sc->screens, i);
        for (size_t j = 0; j < s->path_count; j++)
            if (s->path[j].id == child && (!best || s->path_count < best->path_count)) best = s;
    }
    return best && best->state.title ? best->state.title : "";
}

static void place_parts(scene *sc) {
    for (guint i = 0; i < sc->screens->len; i++) {
        shown *s = g_ptr_array_index(sc->screens, i);
        /* Its flowd window's desktop window: the main one, or one per window a flow opened. */
        uint64_t window = window_of(s);
        frame *main = find_frame(sc, window, 0);
        if (!main) main = new_frame(sc, window, s->display, 0, s->display);
        main->wanted = true;
        for (size_t j = 1; j < s->path_count; j++) {
            const flowd_path_step *step = &s->path[j];
            part *p = ensure_part(sc, step);
            p->wanted = true;
            p->index = step->index;
            g_object_set_data(G_OBJECT(p->widget), "flowd-index", id_pointer(p->index));
            if (p->kind == PART_CARD && step->id == s->id && (s->dirty || !gtk_widget_get_first_child(p->widget)))
                fill_card(sc, p, s);
            GtkWidget *owner;
            if (step->presented) {
                frame *f = find_frame(sc, window, step->id);
                if (!f) f = new_frame(sc, window, NULL, step->id, "");
                f->wanted = true;
                owner = f->content;
            } else if (j == 1) {
                owner = main->content;
            } else {
                part *container = find_part(sc, s->path[j - 1].id);
                owner = container && container->stack ? container->stack : main->content;
            }
            attach(p, owner);
        }
        if (s->visible) /* the tabs that show it are the selected ones */
            for (size_t j = 1; j + 1 < s->path_count; j++)
                if (s->path[j].kind == FLOWD_NODE_TAB_BAR && !s->path[j + 1].presented)
                    g_hash_table_insert(sc->selected_tab, id_pointer(s->path[j].id), id_pointer(s->path[j + 1].index + 1));
    }
}

static void drop_unwanted(scene *sc) {
    /* Detached first, all of them, then released: a container released before a child it holds
     * would leave that child's owner dangling. */
    for (guint i = 0; i < sc->parts->len; i++) {
        part *p = g_ptr_array_index(sc->parts, i);
        if (!p->wanted) detach(p);
    }
    for (guint i = sc->parts->len; i-- > 0;) {
        part *p = g_ptr_array_index(sc->parts, i);
        if (p->wanted) continue;
        g_hash_table_remove(sc->selected_tab, id_pointer(p->id));
        g_object_unref(p->widget);
        g_free(p);
        g_ptr_array_remove_index(sc->parts, i);
    }
    for (guint i = sc->frames->len; i-- > 1;) {
        frame *f = g_ptr_array_index(sc->frames, i);
        if (f->wanted) continue;
        gtk_window_destroy(GTK_WINDOW(f->window));
        g_free(f->display);
        g_free(f);
        g_ptr_array_remove_index(sc->frames, i);
    }
}

/* Each stack shows its top; each tab bar its selected tab. */
static void choose_visible(scene *sc) {
    for (guint i = 0; i < sc->parts->len; i++) {
        part *container = g_ptr_array_index(sc->parts, i);
        if (container->kind == PART_CARD) continue;
        part *pick = NULL;
        uint32_t selected = GPOINTER_TO_UINT(g_hash_table_lookup(sc->selected_tab, id_pointer(container->id)));
        for (guint j = 0; j < sc->parts->len; j++) {
            part *child = g_ptr_array_index(sc->parts, j);
            if (child->owner != container->stack) continue;
            if (container->kind == PART_STACK ? (!pick || child->index > pick->index)
                                              : (selected ? child->index + 1 == selected : !pick || child->index < pick->index))
                pick = child;
        }
        GtkStack *stack = GTK_STACK(container->stack);
        GtkWidget *now = gtk_stack_get_visible_child(stack);
        if (container->kind == PART_TABS)
            for (guint j = 0; j < sc->parts->len; j++) {
                part *child = g_ptr_array_index(sc->parts, j);
                if (child->owner == container->stack)
                    gtk_stack_page_set_title(gtk_stack_get_page(stack, child->widget), tab_title(sc, child->id));
            }
        if (!pick || now == pick->widget) continue;
        GtkStackTransitionType transition = GTK_STACK_TRANSITION_TYPE_NONE;
        if (container->kind == PART_STACK && sc->animate && now)
            transition = pick->index > (uint32_t)id_of(now, "flowd-index") ? GTK_STACK_TRANSITION_TYPE_SLIDE_LEFT
                                                                            : GTK_STACK_TRANSITION_TYPE_SLIDE_RIGHT;
        gtk_stack_set_transition_type(stack, transition);
        gtk_stack_set_visible_child(stack, pick->widget);
    }
}

/* Each window's front screen, title and back button. */
static void update_frames(scene *sc) {
    for (guint i = 0; i < sc->frames->len; i++) {
        frame *f = g_ptr_array_index(sc->frames, i);
        const shown *front = NULL;
        for (guint j = 0; j < sc->screens->len; j++) {
            shown *s = g_ptr_array_index(sc->screens, j);
            if (window_of(s) == f->flowd_window && frame_root_of(s) == f->root && s->visible) front = s;
        }
        if (!front) front = find_shown(sc, f->front); /* covered by a modal: it stays in front here */
        f->front = front ? front->id : 0;
        gtk_label_set_text(GTK_LABEL(f->title), front && front->state.title ? front->state.title : f->root ? "" : f->display ? f->display : "flowd");
        gtk_widget_set_visible(f->back, front && stack_index_of(front) > 0);
    }
}

void scene_sync(scene *sc) {
    sc->syncing = true;
    for (guint i = 0; i < sc->parts->len; i++) ((part *)g_ptr_array_index(sc->parts, i))->wanted = false;
    for (guint i = 1; i < sc->frames->len; i++) ((frame *)g_ptr_array_index(sc->frames, i))->wanted = false;
    place_parts(sc);
    drop_unwanted(sc);
    choose_visible(sc);
    update_frames(sc);
    sc->animate = false;
    sc->syncing = false;
}
