/* flowd-gtk: a GTK 4 desktop host of flowd's demo, on libflowd-screen (docs/native.md).
 *
 *   flowd-gtk [--socket PATH] [--provides KIND,...] [--control]
 *
 * Attached (the default), it shows every kind of the demo launcher; spawned by flowd
 * (--spawn-screens), the one screen it was started for. --control reads commands on standard input
 * and answers each on standard output, for the tests: sync, front, press LABEL, type TEXT (then
 * Enter), fill TEXT (typed, no Enter), back, escape, close, close-window (the first window a flow
 * opened, as its close button), tab N (1-based, as people count tabs),
 * dump, shot PATH, cut, quit. */
#include <flowd/screen.h>
#include <glib-unix.h>
#include <gtk/gtk.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "flowd-shell-client.h"
#include "scene.h"
#include "shelled.h"

static const char *const demo_kinds[] = {"business", "till", "customer", "customer-pay", "directory", "directory-detail", "item", "login", "login-success",
                                         "menu", "profile", "student-age", "student-name", "students", "summary", "tutorial"};

typedef struct app {
    flowd_screen_host *host;
    scene *scene;        /* its own windows, with header bars (NULL under flowd-shell) */
    shelled *shelled;    /* under flowd-shell: one undecorated toplevel per screen (NULL otherwise) */
    GMainLoop *loop;
    guint watch, timer;
    int watched_fd;
    short watched_events;
    bool sync_wanted;    /* a `sync` waits: for a Welcome, then for the Pong of its Ping */
    uint64_t sync_nonce;
    uint64_t sync_connection; /* the connection the Ping went on: a new one needs a new Ping */
    bool sync_done;
    char *shot_path;     /* a `shot` waits for the transitions to end */
    int status;
} app;

static void answer(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void answer(const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vprintf(format, arguments);
    va_end(arguments);
    putchar('\n');
    fflush(stdout);
}

static void rearm(app *a);

static void ended(app *a) {
    const flowd_end *end = flowd_screen_end(a->host);
    switch (end->reason) {
    case FLOWD_END_ERROR:
        fprintf(stderr, "flowd-gtk: %s: %s\n", flowd_error_name(end->error.code), end->error.message);
        a->status = 1;
        break;
    case FLOWD_END_CONNECTION_CLOSED:
        fprintf(stderr, "flowd-gtk: the connection to flowd closed\n");
        break;
    default:
        fprintf(stderr, "flowd-gtk: flowd ended the session%s%s\n", *end->shutdown_message ? ": " : "", end->shutdown_message);
        break;
    }
    g_main_loop_quit(a->loop);
}

/* A `sync`'s Ping, once there is a Welcome (again, after a reconnect). */
static void ping_for_sync(app *a) {
    const flowd_welcome *welcome = flowd_screen_welcome(a->host);
    if (!a->sync_wanted || !welcome || (a->sync_nonce && a->sync_connection == welcome->connection_id)) return;
    if (flowd_screen_ping(a->host, &a->sync_nonce, NULL) == 0) a->sync_connection = welcome->connection_id;
    else a->sync_nonce = 0; /* reconnecting: after the next Welcome */
}

/* One dispatch, then the widgets, then the answers that waited for them. */
static gboolean dispatch(gpointer user) {
    app *a = user;
    int done = flowd_screen_dispatch(a->host);
    if (a->scene) scene_sync(a->scene);
    if (a->sync_done) {
        a->sync_done = a->sync_wanted = false;
        a->sync_nonce = 0;
        answer("ok");
    }
    ping_for_sync(a);
    if (done) {
        ended(a);
        return G_SOURCE_REMOVE;
    }
    rearm(a);
    return G_SOURCE_CONTINUE;
}

static gboolean ready(gint fd, GIOCondition condition, gpointer user) {
    (void)fd;
    (void)condition;
    app *a = user;
    a->watch = 0; /* rearm adds a new one when needed */
    dispatch(a);
    return G_SOURCE_REMOVE;
}

static gboolean timed_out(gpointer user) {
    app *a = user;
    a->timer = 0;
    dispatch(a);
    return G_SOURCE_REMOVE;
}

/* A GLib source on the host's descriptor (it changes when the host reconnects) and its timeout. */
static void rearm(app *a) {
    int fd = flowd_screen_fd(a->host);
    short events = flowd_screen_events(a->host);
    if (a->watch && (fd != a->watched_fd || events != a->watched_events)) {
        g_source_remove(a->watch);
        a->watch = 0;
    }
    if (!a->watch && fd >= 0) {
        GIOCondition condition = G_IO_IN | (events & POLLOUT ? G_IO_OUT : 0);
        a->watch = g_unix_fd_add(fd, condition, ready, a);
        a->watched_fd = fd;
        a->watched_events = events;
    }
    if (a->timer) {
        g_source_remove(a->timer);
        a->timer = 0;
    }
    int timeout = flowd_screen_timeout_ms(a->host);
    if (timeout >= 0) a->timer = g_timeout_add(timeout, timed_out, a);
}

/* A send outside a dispatch may leave bytes queued: watch for writing too. */
static void sent(void *user) {
    rearm(user);
}

static void ponged(flowd_screen_host *host, uint64_t nonce, void *user) {
    (void)host;
    app *a = user;
    if (a->sync_wanted && nonce == a->sync_nonce) a->sync_done = true;
}

/* The library's callbacks carry the app; the scene takes the screens. */
static void placed(flowd_screen_host *host, const flowd_place *place, void *user) {
    app *a = user;
    a->shelled ? shelled_placed(host, place, a->shelled) : scene_placed(host, place, a->scene);
}
static void updated(flowd_screen_host *host, const flowd_update *update, void *user) {
    app *a = user;
    a->shelled ? shelled_updated(host, update, a->shelled) : scene_updated(host, update, a->scene);
}
static void placement_changed(flowd_screen_host *host, const flowd_placement_changed *change, void *user) {
    app *a = user;
    if (a->scene) scene_placement_changed(host, change, a->scene); /* the shell places the surfaces */
}
static void dismissed(flowd_screen_host *host, const flowd_dismiss *dismiss, void *user) {
    app *a = user;
    a->shelled ? shelled_dismissed(host, dismiss, a->shelled) : scene_dismissed(host, dismiss, a->scene);
}

static void connection(flowd_screen_host *host, const flowd_connection_event *event, void *user) {
    (void)host;
    (void)user;
    fprintf(stderr, "flowd-gtk: %s\n", event->text);
}

static void refused(flowd_screen_host *host, const flowd_error *error, void *user) {
    (void)host;
    (void)user;
    fprintf(stderr, "flowd-gtk: flowd says %s: %s\n", flowd_error_name(error->code), error->message);
}

/* ---- The test channel -------------------------------------------------------------------------- */

static gboolean take_shot(gpointer user) {
    app *a = user;
    if (!a->scene) {
        answer("error under flowd-shell the shell takes the screenshots (grim)");
        return G_SOURCE_REMOVE;
    }
    if (scene_animating(a->scene)) return G_SOURCE_CONTINUE;
    const char *failed = scene_screenshot(a->scene, a->shot_path);
    failed ? answer("error %s", failed) : answer("ok %s", a->shot_path);
    g_free(a->shot_path);
    a->shot_path = NULL;
    return G_SOURCE_REMOVE;
}

static void command(app *a, char *line) {
    line[strcspn(line, "\n")] = 0;
    char *argument = strchr(line, ' ');
    if (argument) *argument++ = 0;
    const char *failed = NULL;
    if (!strcmp(line, "sync")) {
        a->sync_wanted = true;
        a->sync_nonce = 0;
        ping_for_sync(a);
        rearm(a);
        return; /* answered at the Pong */
    } else if (a->shelled && strcmp(line, "quit") && strcmp(line, "cut") && strcmp(line, "shot")) {
        answer("error under flowd-shell this host only draws; the shell navigates (its --control)");
        return;
    } else if (!strcmp(line, "front")) {
        uint64_t id;
        const char *kind, *title, *body;
        if (scene_front(a->scene, &id, &kind, &title, &body))
            answer("ok %llu %s \"%s\" \"%s\"", (unsigned long long)id, kind, title, body);
        else
            answer("error no screen in front");
        return;
    } else if (!strcmp(line, "dump")) {
        GString *out = g_string_new("");
        scene_dump(a->scene, out);
        printf("%sok\n", out->str);
        fflush(stdout);
        g_string_free(out, TRUE);
        return;
    } else if (!strcmp(line, "shot") && argument) {
        a->shot_path = g_strdup(argument);
        g_timeout_add(50, take_shot, a);
        return;
    } else if (!strcmp(line, "press") && argument) {
        failed = scene_press(a->scene, argument);
    } else if (!strcmp(line, "type") && argument) {
        failed = scene_type(a->scene, argument, true);
    } else if (!strcmp(line, "fill") && argument) {
        failed = scene_type(a->scene, argument, false);
    } else if (!strcmp(line, "back")) {
        failed = scene_back(a->scene);
    } else if (!strcmp(line, "escape")) {
        failed = scene_escape(a->scene);
    } else if (!strcmp(line, "close")) {
        failed = scene_close(a->scene);
    } else if (!strcmp(line, "close-window")) {
        failed = scene_close_window(a->scene);
    } else if (!strcmp(line, "tab") && argument) {
        failed = scene_tab(a->scene, atoi(argument));
    } else if (!strcmp(line, "cut")) {
        /* The connection breaks as a crashed link would: the host resumes with its token. */
        if (shutdown(flowd_screen_fd(a->host), SHUT_RDWR) < 0) failed = "no connection to cut";
    } else if (!strcmp(line, "quit")) {
        flowd_screen_stop(a->host);
        answer("ok");
        g_main_loop_quit(a->loop);
        return;
    } else {
        failed = "unknown command (sync, front, press, type, fill, back, escape, close, close-window, tab, dump, shot, cut, quit)";
    }
    failed ? answer("error %s", failed) : answer("ok");
    rearm(a); /* what the command sent is written at the next dispatch */
    dispatch(a);
}

/* Closing the main window ends the host: it says Shutdown, and its screens wait for the next host. */
static gboolean main_closed(GtkWindow *window, gpointer user) {
    (void)window;
    app *a = user;
    flowd_screen_stop(a->host);
    g_main_loop_quit(a->loop);
    return TRUE;
}

static gboolean control_ready(GIOChannel *channel, GIOCondition condition, gpointer user) {
    (void)condition;
    app *a = user;
    char *line = NULL;
    gsize length;
    GIOStatus status = g_io_channel_read_line(channel, &line, &length, NULL, NULL);
    if (status == G_IO_STATUS_EOF) {
        g_main_loop_quit(a->loop);
        return G_SOURCE_REMOVE;
    }
    if (line) command(a, line);
    g_free(line);
    return G_SOURCE_CONTINUE;
}

int main(int argc, char **argv) {
    const char *socket_path = NULL;
    gchar **provides = NULL;
    bool control = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--socket") && i + 1 < argc) socket_path = argv[++i];
        else if (!strcmp(argv[i], "--provides") && i + 1 < argc) provides = g_strsplit(argv[++i], ",", -1);
        else if (!strcmp(argv[i], "--control")) control = true;
        else {
            fprintf(stderr, "usage: flowd-gtk [--socket PATH] [--provides KIND,...] [--control]\n");
            return 64;
        }
    }
    /* Restarted while flowd-shell restarts too: wait for the display rather than fail (75: try again). */
    if (getenv("WAYLAND_DISPLAY") && !getenv("DISPLAY") && flowd_shell_wait_display(30000) < 0) {
        fprintf(stderr, "flowd-gtk: no Wayland display %s after 30 s\n", getenv("WAYLAND_DISPLAY"));
        return 75;
    }
    if (!gtk_init_check()) {
        fprintf(stderr, "flowd-gtk: no display (set DISPLAY or WAYLAND_DISPLAY, or run it under xvfb-run)\n");
        return 1;
    }
    app a = {.watched_fd = -1};
    a.loop = g_main_loop_new(NULL, FALSE);
    if (shelled_available()) {
        a.shelled = shelled_new();
        fprintf(stderr, "flowd-gtk: under flowd-shell: one toplevel per screen, the shell draws the chrome\n");
    } else {
        a.scene = scene_new(NULL, "flowd");
    }
    flowd_screen_options options;
    flowd_screen_options_init(&options);
    options.name = "flowd-gtk";
    options.socket_path = socket_path;
    options.provides = provides ? (const char *const *)provides : demo_kinds;
    options.provides_count = provides ? g_strv_length(provides) : G_N_ELEMENTS(demo_kinds);
    options.callbacks.placed = placed;
    options.callbacks.updated = updated;
    options.callbacks.placement_changed = placement_changed;
    options.callbacks.dismissed = dismissed;
    options.callbacks.pong = ponged;
    options.callbacks.error = refused;
    options.callbacks.connection = connection;
    options.user = &a;
    flowd_error error;
    a.host = flowd_screen_open(&options, &error);
    if (!a.host) {
        fprintf(stderr, "flowd-gtk: %s\n", error.message);
        return 1;
    }
    if (a.scene) {
        scene_set_host(a.scene, a.host);
        scene_on_sent(a.scene, sent, &a);
        g_signal_connect(scene_main_window(a.scene), "close-request", G_CALLBACK(main_closed), &a);
    } else {
        shelled_set_host(a.shelled, a.host);
        shelled_on_sent(a.shelled, sent, &a);
    }
    if (control) {
        GIOChannel *input = g_io_channel_unix_new(0);
        g_io_add_watch(input, G_IO_IN | G_IO_HUP, control_ready, &a);
    }
    rearm(&a);
    g_main_loop_run(a.loop);
    flowd_screen_free(a.host);
    if (a.scene) scene_free(a.scene);
    if (a.shelled) shelled_free(a.shelled);
    return a.status;
}
