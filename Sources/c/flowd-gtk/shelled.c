/* flowd-gtk under flowd-shell (docs/shell.md, "What a toolkit host does"): one undecorated toplevel
 * per screen with only the screen's content (body, field, buttons), claimed with the screen's
 * display_token; the shell draws back, the title (the toplevel's title) and the tabs, and sends the
 * navigation itself. */
#include <gdk/wayland/gdkwayland.h>
#include <stdio.h>
#include <string.h>

#include "card.h"
#include "flowd-shell-client.h"
#include "shelled.h"

typedef struct shelled_screen {
    uint64_t id;
    char *kind;
    char *token;
    GtkWidget *window;
    card state;
    shelled *owner;
} shelled_screen;

struct shelled {
    flowd_screen_host *host;
    GHashTable *screens; /* id -> shelled_screen */
    void (*sent)(void *);
    void *sent_user;
};

static struct wl_display *wayland_display(void) {
    GdkDisplay *display = gdk_display_get_default();
    return display && GDK_IS_WAYLAND_DISPLAY(display) ? gdk_wayland_display_get_wl_display(display) : NULL;
}

bool shelled_available(void) { return flowd_shell_available(wayland_display()) == 1; }

static void screen_free(gpointer data) {
    shelled_screen *s = data;
    if (s->window) gtk_window_destroy(GTK_WINDOW(s->window));
    card_free(&s->state);
    g_free(s->kind);
    g_free(s->token);
    g_free(s);
}

shelled *shelled_new(void) {
    shelled *sh = g_new0(shelled, 1);
    sh->screens = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, screen_free);
    return sh;
}

void shelled_free(shelled *sh) {
    g_hash_table_destroy(sh->screens);
    g_free(sh);
}

void shelled_set_host(shelled *sh, flowd_screen_host *host) { sh->host = host; }

void shelled_on_sent(shelled *sh, void (*sent)(void *), void *user) {
    sh->sent = sent;
    sh->sent_user = user;
}

static void report(shelled *sh, int result, const flowd_error *error) {
    if (result < 0) fprintf(stderr, "flowd-gtk: %s: %s\n", flowd_error_name(error->code), error->message);
    if (sh->sent) sh->sent(sh->sent_user);
}

/* A button sends the text typed into the field and not sent first (docs/demo.md, "Screen contracts"). */
static void pressed(GtkButton *button, gpointer user) {
    shelled_screen *s = user;
    flowd_error error;
    for (GtkWidget *c = gtk_widget_get_first_child(gtk_widget_get_parent(GTK_WIDGET(button))); c; c = gtk_widget_get_next_sibling(c)) {
        if (!GTK_IS_ENTRY(c)) continue;
        const char *sent = g_object_get_data(G_OBJECT(c), "flowd-sent");
        const char *typed = gtk_editable_get_text(GTK_EDITABLE(c));
        char *text = card_pending_text_json(typed, sent ? sent : s->state.text);
        if (!text) continue;
        report(s->owner, flowd_screen_send_json(s->owner->host, s->id, text, &error), &error);
        free(text);
        g_object_set_data_full(G_OBJECT(c), "flowd-sent", g_strdup(typed), g_free);
    }
    char *json = card_press_json(GPOINTER_TO_SIZE(g_object_get_data(G_OBJECT(button), "flowd-index")));
    report(s->owner, flowd_screen_send_json(s->owner->host, s->id, json, &error), &error);
    free(json);
}

static void entered(GtkEntry *entry, gpointer user) {
    shelled_screen *s = user;
    flowd_error error;
    const char *typed = gtk_editable_get_text(GTK_EDITABLE(entry));
    char *json = card_text_json(typed);
    report(s->owner, flowd_screen_send_json(s->owner->host, s->id, json, &error), &error);
    free(json);
    g_object_set_data_full(G_OBJECT(entry), "flowd-sent", g_strdup(typed), g_free);
}

/* The screen's content only: the shell shows the title in its header. */
static void draw(shelled_screen *s) {
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
    gtk_widget_set_margin_top(box, 24);
    gtk_widget_set_margin_start(box, 24);
    gtk_widget_set_margin_end(box, 24);
    if (s->state.body && *s->state.body) {
        GtkWidget *body = gtk_label_new(s->state.body);
        gtk_label_set_wrap(GTK_LABEL(body), TRUE);
        gtk_box_append(GTK_BOX(box), body);
    }
    if (s->state.field) {
        GtkWidget *entry = gtk_entry_new();
        gtk_entry_set_placeholder_text(GTK_ENTRY(entry), s->state.field);
        if (s->state.text) gtk_editable_set_text(GTK_EDITABLE(entry), s->state.text);
        g_signal_connect(entry, "activate", G_CALLBACK(entered), s);
        gtk_box_append(GTK_BOX(box), entry);
    }
    for (size_t index = 0; index < s->state.button_count; index++) {
        GtkWidget *button = gtk_button_new_with_label(s->state.buttons[index]);
        g_object_set_data(G_OBJECT(button), "flowd-index", GSIZE_TO_POINTER(index));
        g_signal_connect(button, "clicked", G_CALLBACK(pressed), s);
        gtk_box_append(GTK_BOX(box), button);
    }
    gtk_window_set_child(GTK_WINDOW(s->window), box);
    gtk_window_set_title(GTK_WINDOW(s->window), s->state.title && *s->state.title ? s->state.title : s->kind);
}

/* Realized: the toplevel has its wl_surface; claimed before GTK commits its first buffer. */
static void realized(GtkWidget *window, gpointer user) {
    shelled_screen *s = user;
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(window));
    if (flowd_shell_claim(wayland_display(), gdk_wayland_surface_get_wl_surface(surface), s->token) != 0) {
        fprintf(stderr, "flowd-gtk: screen %llu has no display_token to claim its surface with\n", (unsigned long long)s->id);
    }
}

static bool take_state(flowd_screen_host *host, shelled_screen *s, const flowd_payload *state, uint64_t serial) {
    card decoded;
    char why[200];
    if (card_decode(state->data, state->size, &decoded, why, sizeof why) < 0) {
        char message[300];
        snprintf(message, sizeof message, "kind \"%s\": %s", s->kind, why);
        flowd_screen_defer_ack(host);
        flowd_screen_refuse(host, s->id, serial, message, NULL);
        return false;
    }
    card_free(&s->state);
    s->state = decoded;
    return true;
}

void shelled_placed(flowd_screen_host *host, const flowd_place *place, void *user) {
    shelled *sh = user;
    shelled_screen *s = g_hash_table_lookup(sh->screens, &place->screen_id);
    if (s) { /* placed again (a resume): a new secret for the same surface */
        g_free(s->token);
        s->token = g_strdup(place->display_token);
        if (gtk_widget_get_realized(s->window)) realized(s->window, s);
    } else {
        s = g_new0(shelled_screen, 1);
        s->id = place->screen_id;
        s->owner = sh;
        s->kind = g_strdup(place->kind);
        s->token = g_strdup(place->display_token);
        g_hash_table_insert(sh->screens, &s->id, s);
        s->window = gtk_window_new();
        gtk_window_set_decorated(GTK_WINDOW(s->window), FALSE);
        g_signal_connect(s->window, "realize", G_CALLBACK(realized), s);
    }
    if (take_state(host, s, &place->state, place->serial) || !gtk_window_get_child(GTK_WINDOW(s->window))) draw(s);
    gtk_window_present(GTK_WINDOW(s->window));
}

void shelled_updated(flowd_screen_host *host, const flowd_update *update, void *user) {
    shelled *sh = user;
    shelled_screen *s = g_hash_table_lookup(sh->screens, &update->screen_id);
    if (s && take_state(host, s, &update->state, update->serial)) draw(s);
}

void shelled_dismissed(flowd_screen_host *host, const flowd_dismiss *dismiss, void *user) {
    (void)host;
    shelled *sh = user;
    g_hash_table_remove(sh->screens, &dismiss->screen_id);
}

size_t shelled_count(shelled *sh) { return g_hash_table_size(sh->screens); }
