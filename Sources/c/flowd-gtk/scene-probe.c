/* The test channel's side of flowd-gtk's scene (scene.h): presses, typing, back, close and tabs as a
 * person does them, the screen in front, a dump of the widgets and a screenshot. */
#include "scene-parts.h"

#include <string.h>

static part *front_card(scene *sc, shown **screen) {
    frame *f = front_frame(sc);
    shown *s = find_shown(sc, f->front);
    if (screen) *screen = s;
    return s ? find_part(sc, s->id) : NULL;
}

const char *scene_press(scene *sc, const char *label) {
    part *front = front_card(sc, NULL);
    if (!front) return "no screen in front";
    GtkWidget *found = NULL;
    int prefixed = 0;
    for (GtkWidget *child = gtk_widget_get_first_child(front->widget); child; child = gtk_widget_get_next_sibling(child)) {
        if (!GTK_IS_BUTTON(child)) continue;
        const char *text = gtk_button_get_label(GTK_BUTTON(child));
        if (!strcmp(text, label)) {
            found = child;
            prefixed = 1;
            break;
        }
        if (!strncmp(text, label, strlen(label)) && prefixed++ == 0) found = child; /* as the walkthrough names them */
    }
    if (!found) return "no such button on the screen in front";
    if (prefixed > 1) return "more than one button starts so";
    g_signal_emit_by_name(found, "clicked"); /* as a click does */
    return NULL;
}

const char *scene_type(scene *sc, const char *text, bool enter) {
    part *front = front_card(sc, NULL);
    if (!front) return "no screen in front";
    for (GtkWidget *child = gtk_widget_get_first_child(front->widget); child; child = gtk_widget_get_next_sibling(child))
        if (GTK_IS_ENTRY(child)) {
            gtk_editable_set_text(GTK_EDITABLE(child), text);
            if (enter) g_signal_emit_by_name(child, "activate"); /* as Enter does */
            return NULL;
        }
    return "the screen in front has no text field";
}

const char *scene_back(scene *sc) {
    frame *f = front_frame(sc);
    if (!gtk_widget_get_visible(f->back)) return "no back button here";
    g_signal_emit_by_name(f->back, "clicked");
    return NULL;
}

const char *scene_escape(scene *sc) {
    return escape_in(sc, front_frame(sc));
}

const char *scene_close_window(scene *sc) {
    for (guint i = 0; i < sc->frames->len; i++) {
        frame *f = g_ptr_array_index(sc->frames, i);
        if (!f->flowd_window || f->root) continue;
        gboolean kept = FALSE;
        g_signal_emit_by_name(f->window, "close-request", &kept); /* as the window's close button does */
        return NULL;
    }
    return "no window a flow opened";
}

const char *scene_close(scene *sc) {
    frame *f = front_frame(sc);
    if (!f->root) return "no modal window to close";
    gboolean kept = FALSE;
    g_signal_emit_by_name(f->window, "close-request", &kept); /* as the window's close button does */
    return NULL;
}

const char *scene_tab(scene *sc, int tab) {
    shown *s;
    if (!front_card(sc, &s)) return "no screen in front";
    for (size_t j = s->path_count; j-- > 1;) {
        if (s->path[j - 1].kind != FLOWD_NODE_TAB_BAR) continue;
        part *bar = find_part(sc, s->path[j - 1].id);
        for (guint i = 0; bar && i < sc->parts->len; i++) {
            part *child = g_ptr_array_index(sc->parts, i);
            if (child->owner == bar->stack && child->index + 1 == (uint32_t)tab) {
                gtk_stack_set_visible_child(GTK_STACK(bar->stack), child->widget); /* as the switcher does */
                return NULL;
            }
        }
        return "no such tab";
    }
    return "the screen in front is in no tab bar";
}

bool scene_front(scene *sc, uint64_t *id, const char **kind, const char **title, const char **body) {
    shown *s;
    if (!front_card(sc, &s) || !s) return false;
    *id = s->id;
    *kind = s->kind;
    *title = s->state.title ? s->state.title : "";
    *body = s->state.body ? s->state.body : "";
    return true;
}

static void dump_widget(scene *sc, GtkWidget *widget, int depth, bool shown_now, GString *out) {
    part *p = find_part(sc, id_of(widget, ID_KEY));
    if (!p) return;
    g_string_append_printf(out, "%*s", depth * 2, "");
    if (p->kind == PART_CARD) {
        shown *s = find_shown(sc, p->id);
        g_string_append_printf(out, "%sscreen %llu %s \"%s\"", shown_now ? "* " : "", (unsigned long long)p->id,
                               s ? s->kind : "?", s && s->state.title ? s->state.title : "");
        for (GtkWidget *c = gtk_widget_get_first_child(widget); c; c = gtk_widget_get_next_sibling(c))
            if (GTK_IS_BUTTON(c)) g_string_append_printf(out, " [%s]", gtk_button_get_label(GTK_BUTTON(c)));
            else if (GTK_IS_ENTRY(c)) g_string_append_printf(out, " <%s>", gtk_editable_get_text(GTK_EDITABLE(c)));
        g_string_append_c(out, '\n');
        return;
    }
    g_string_append_printf(out, "%s%s %llu\n", shown_now ? "* " : "", p->kind == PART_STACK ? "stack" : "tabs",
                           (unsigned long long)p->id);
    GtkWidget *visible = gtk_stack_get_visible_child(GTK_STACK(p->stack));
    for (GtkWidget *c = gtk_widget_get_first_child(p->stack); c; c = gtk_widget_get_next_sibling(c))
        dump_widget(sc, c, depth + 1, shown_now && c == visible, out);
}

void scene_dump(scene *sc, GString *out) {
    for (guint i = 0; i < sc->frames->len; i++) {
        frame *f = g_ptr_array_index(sc->frames, i);
        /* A window a flow opened is `window display NAME ID`; a modal one in it adds `in ID`. */
        if (f->flowd_window && !f->root) g_string_append_printf(out, "window display %s %llu", f->display, (unsigned long long)f->flowd_window);
        else g_string_append_printf(out, "window %s%llu", f->root ? "modal " : "", (unsigned long long)f->root);
        if (f->flowd_window && f->root) g_string_append_printf(out, " in %llu", (unsigned long long)f->flowd_window);
        g_string_append_printf(out, " \"%s\" back=%s front=%llu\n", gtk_label_get_text(GTK_LABEL(f->title)),
                               gtk_widget_get_visible(f->back) ? "yes" : "no", (unsigned long long)f->front);
        for (GtkWidget *c = gtk_widget_get_first_child(f->content); c; c = gtk_widget_get_next_sibling(c))
            dump_widget(sc, c, 1, f == front_of(sc, f->flowd_window), out);
    }
}

bool scene_animating(scene *sc) {
    for (guint i = 0; i < sc->parts->len; i++) {
        part *p = g_ptr_array_index(sc->parts, i);
        if (p->stack && gtk_stack_get_transition_running(GTK_STACK(p->stack))) return true;
    }
    return false;
}

const char *scene_screenshot(scene *sc, const char *path) {
    GtkWidget *window = front_frame(sc)->window;
    int width = gtk_widget_get_width(window), height = gtk_widget_get_height(window);
    if (width <= 0 || height <= 0) return "the window is not drawn yet";
    GdkPaintable *paintable = gtk_widget_paintable_new(window);
    GtkSnapshot *snapshot = gtk_snapshot_new();
    gdk_paintable_snapshot(paintable, snapshot, width, height);
    GskRenderNode *node = gtk_snapshot_free_to_node(snapshot);
    const char *failed = NULL;
    if (!node) {
        failed = "nothing to draw";
    } else {
        GskRenderer *renderer = gtk_native_get_renderer(GTK_NATIVE(window));
        GdkTexture *texture = gsk_renderer_render_texture(renderer, node, &GRAPHENE_RECT_INIT(0, 0, width, height));
        if (!gdk_texture_save_to_png(texture, path)) failed = "the PNG could not be written";
        g_object_unref(texture);
        gsk_render_node_unref(node);
    }
    g_object_unref(paintable);
    return failed;
}
