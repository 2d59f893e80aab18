/* The C conformance tests' support: flowd, a proxy, a recording host, CardState. */
#include "support.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wire.h" /* the proxy reads envelopes with the library's own decoder */

static long long now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static void sleep_ms(int ms) {
    struct timespec pause = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&pause, NULL);
}

/* ---- flowd ------------------------------------------------------------------------------------ */

static const char *flowd_binary(void) {
    const char *binary = getenv("FLOWD_BINARY");
    if (!binary || !*binary) {
        fprintf(stderr, "FLOWD_BINARY is not set (scripts/libflowd-screen test sets it)\n");
        exit(2);
    }
    return binary;
}

void daemon_start(daemon_process *daemon, const char *app, const char *directory, const char *const *arguments) {
    memset(daemon, 0, sizeof *daemon);
    if (directory) {
        snprintf(daemon->directory, sizeof daemon->directory, "%s", directory);
    } else {
        snprintf(daemon->directory, sizeof daemon->directory, "/tmp/fc-XXXXXX");
        if (!mkdtemp(daemon->directory)) check_failed(__FILE__, __LINE__, "mkdtemp");
    }
    snprintf(daemon->socket_path, sizeof daemon->socket_path, "%s/flowd.sock", daemon->directory);
    snprintf(daemon->log_path, sizeof daemon->log_path, "%s/flowd%s.log", daemon->directory, directory ? "-2" : "");
    const char *argv[32] = {flowd_binary(), "serve", "--app", app, "--socket", daemon->socket_path, "--no-state"};
    int argc = 7;
    for (int i = 0; arguments && arguments[i] && argc < 30; i++) argv[argc++] = arguments[i];
    argv[argc] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int log = open(daemon->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        dup2(log, 2);
        setenv("FLOWD_PYTHON_SCREENS", "0", 1); /* the tests host every kind themselves */
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    daemon->pid = pid;
    if (!daemon_wait_for_log(daemon, "listening on", 30000)) {
        char *log = daemon_log(daemon);
        fprintf(stderr, "flowd did not start:\n%s\n", log ? log : "");
        free(log);
        check_failed(__FILE__, __LINE__, "flowd started");
    }
}

char *daemon_log(const daemon_process *daemon) {
    FILE *file = fopen(daemon->log_path, "r");
    if (!file) return NULL;
    size_t size = 0, capacity = 4096;
    char *text = malloc(capacity);
    size_t got;
    while (text && (got = fread(text + size, 1, capacity - size - 1, file)) > 0) {
        size += got;
        if (capacity - size < 1024) text = realloc(text, capacity *= 2);
    }
    fclose(file);
    if (text) text[size] = 0;
    return text;
}

int daemon_wait_for_log(const daemon_process *daemon, const char *text, int timeout_ms) {
    long long deadline = now_ms() + timeout_ms;
    do {
        char *log = daemon_log(daemon);
        bool found = log && strstr(log, text);
        free(log);
        if (found) return 1;
        sleep_ms(10);
    } while (now_ms() < deadline);
    return 0;
}

int daemon_wait(daemon_process *daemon, int timeout_ms) {
    long long deadline = now_ms() + timeout_ms;
    while (daemon->pid > 0) {
        int status;
        pid_t done = waitpid(daemon->pid, &status, WNOHANG);
        if (done == daemon->pid) {
            daemon->pid = 0;
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        }
        if (now_ms() >= deadline) return -1;
        sleep_ms(10);
    }
    return -1;
}

void daemon_kill(daemon_process *daemon) {
    if (daemon->pid > 0) {
        kill(daemon->pid, SIGKILL);
        waitpid(daemon->pid, NULL, 0);
        daemon->pid = 0;
    }
}

void daemon_stop(daemon_process *daemon) {
    daemon_kill(daemon);
    if (daemon->directory[0]) {
        char command[160];
        snprintf(command, sizeof command, "rm -rf '%s'", daemon->directory);
        if (system(command) != 0) fprintf(stderr, "could not remove %s\n", daemon->directory);
    }
}

/* ---- The proxy: one thread; relays frame by frame so it can lose one ---------------------------- */

struct proxy {
    char daemon_path[128];
    char path[128];
    int listener;
    int wake[2];
    pthread_t thread;
    pthread_mutex_t lock;
    int client, upstream;
    fw_buffer up, down; /* bytes read and not yet relayed, per direction */
    int lose_up;        /* body field to lose, 0 none */
    int lose_down;
    int lost;
    int connections;
    bool cut_requested;
    bool closing;
};

static void proxy_drop_pair(proxy *p) {
    if (p->client >= 0) { shutdown(p->client, SHUT_RDWR); close(p->client); }
    if (p->upstream >= 0) { shutdown(p->upstream, SHUT_RDWR); close(p->upstream); }
    p->client = p->upstream = -1;
    p->up.size = p->down.size = 0;
}

static int unix_connect(const char *path) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) return -1;
    memcpy(address.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&address, sizeof address) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static bool write_all(int fd, const uint8_t *data, size_t size) {
    while (size) {
        ssize_t written = send(fd, data, size, MSG_NOSIGNAL);
        if (written <= 0) {
            if (written < 0 && errno == EINTR) continue;
            return false;
        }
        data += written;
        size -= (size_t)written;
    }
    return true;
}

/* Relays the whole frames in `buffer` to `target`; false when it lost one (and cut) or failed. */
static bool relay_frames(proxy *p, fw_buffer *buffer, int target, int *lose) {
    size_t at = 0;
    for (;;) {
        fw_slice frame;
        size_t used;
        char why[128];
        int got = fw_next_frame(buffer->data + at, buffer->size - at, UINT32_MAX, &frame, &used, why, sizeof why);
        if (got <= 0) break;
        fw_envelope envelope;
        if (*lose && fw_decode_envelope(frame, &envelope, why, sizeof why) == 0 && envelope.body_field == (uint32_t)*lose) {
            *lose = 0;
            p->lost++;
            proxy_drop_pair(p);
            return false;
        }
        if (!write_all(target, buffer->data + at, used)) return false;
        at += used;
    }
    memmove(buffer->data, buffer->data + at, buffer->size - at);
    buffer->size -= at;
    return true;
}

static void *proxy_run(void *argument) {
    proxy *p = argument;
    for (;;) {
        struct pollfd fds[4] = {{p->listener, POLLIN, 0}, {p->wake[0], POLLIN, 0}, {-1, POLLIN, 0}, {-1, POLLIN, 0}};
        pthread_mutex_lock(&p->lock);
        fds[2].fd = p->client;
        fds[3].fd = p->upstream;
        pthread_mutex_unlock(&p->lock);
        if (poll(fds, 4, -1) < 0 && errno != EINTR) break;
        pthread_mutex_lock(&p->lock);
        if (p->closing) {
            proxy_drop_pair(p);
            pthread_mutex_unlock(&p->lock);
            break;
        }
        if (fds[1].revents) {
            char byte;
            while (read(p->wake[0], &byte, 1) == 1) {}
        }
        if (p->cut_requested) {
            p->cut_requested = false;
            proxy_drop_pair(p);
        }
        if (fds[0].revents & POLLIN) {
            int client = accept4(p->listener, NULL, NULL, SOCK_CLOEXEC);
            if (client >= 0) {
                proxy_drop_pair(p); /* one connection at a time: the newest */
                p->client = client;
                p->upstream = unix_connect(p->daemon_path);
                p->connections++;
                if (p->upstream < 0) proxy_drop_pair(p);
            }
        }
        for (int side = 0; side < 2; side++) {
            int source = side == 0 ? p->client : p->upstream;
            int target = side == 0 ? p->upstream : p->client;
            if (source < 0 || !(fds[2 + side].revents & (POLLIN | POLLHUP | POLLERR)) || fds[2 + side].fd != source) continue;
            fw_buffer *buffer = side == 0 ? &p->up : &p->down;
            fw_reserve(buffer, 65536);
            ssize_t got = recv(source, buffer->data + buffer->size, buffer->capacity - buffer->size, 0);
            if (got <= 0) {
                proxy_drop_pair(p);
                break;
            }
            buffer->size += (size_t)got;
            if (!relay_frames(p, buffer, target, side == 0 ? &p->lose_up : &p->lose_down)) {
                proxy_drop_pair(p);
                break;
            }
        }
        pthread_mutex_unlock(&p->lock);
    }
    return NULL;
}

proxy *proxy_start(const char *daemon_path, const char *path) {
    proxy *p = calloc(1, sizeof *p);
    snprintf(p->daemon_path, sizeof p->daemon_path, "%s", daemon_path);
    snprintf(p->path, sizeof p->path, "%s", path);
    p->client = p->upstream = -1;
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) check_failed(__FILE__, __LINE__, "a short proxy path");
    memcpy(address.sun_path, path, strlen(path) + 1);
    p->listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (bind(p->listener, (struct sockaddr *)&address, sizeof address) < 0 || listen(p->listener, 8) < 0)
        check_failed(__FILE__, __LINE__, "the proxy listens");
    if (pipe2(p->wake, O_CLOEXEC | O_NONBLOCK) < 0) check_failed(__FILE__, __LINE__, "pipe2");
    pthread_mutex_init(&p->lock, NULL);
    pthread_create(&p->thread, NULL, proxy_run, p);
    return p;
}

static void proxy_wake(proxy *p) {
    if (write(p->wake[1], "x", 1) < 0) {}
}

void proxy_cut(proxy *p) {
    pthread_mutex_lock(&p->lock);
    p->cut_requested = true;
    pthread_mutex_unlock(&p->lock);
    proxy_wake(p);
    for (int i = 0; i < 500; i++) { /* until the thread has cut */
        pthread_mutex_lock(&p->lock);
        bool done = !p->cut_requested;
        pthread_mutex_unlock(&p->lock);
        if (done) return;
        sleep_ms(2);
    }
}

void proxy_lose_next(proxy *p, int up, unsigned body_field) {
    pthread_mutex_lock(&p->lock);
    if (up) p->lose_up = (int)body_field; else p->lose_down = (int)body_field;
    pthread_mutex_unlock(&p->lock);
}

int proxy_lost(proxy *p) {
    pthread_mutex_lock(&p->lock);
    int lost = p->lost;
    pthread_mutex_unlock(&p->lock);
    return lost;
}

int proxy_connections(proxy *p) {
    pthread_mutex_lock(&p->lock);
    int count = p->connections;
    pthread_mutex_unlock(&p->lock);
    return count;
}

void proxy_close(proxy *p) {
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->closing = true;
    pthread_mutex_unlock(&p->lock);
    proxy_wake(p);
    pthread_join(p->thread, NULL);
    close(p->listener);
    close(p->wake[0]);
    close(p->wake[1]);
    unlink(p->path);
    fw_buffer_free(&p->up);
    fw_buffer_free(&p->down);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

/* ---- CardState ----------------------------------------------------------------------------------- */

void card_decode(const uint8_t *data, size_t size, card *out) {
    memset(out, 0, sizeof *out);
    size_t at = 0;
    while (at < size) {
        uint8_t tag = data[at++];
        if ((tag & 7) != 2 || at >= size) return; /* every CardState field is length-delimited */
        size_t length = data[at++];               /* the tests' titles are short */
        if (length >= 0x80 || at + length > size) return;
        if (tag >> 3 == 1) snprintf(out->title, sizeof out->title, "%.*s", (int)length, (const char *)data + at);
        if (tag >> 3 == 3) out->buttons++;
        at += length;
    }
}

/* ---- The recording host -------------------------------------------------------------------------- */

static const char *reason_name(int reason) {
    switch (reason) {
    case FLOWD_DISMISS_FLOW_FINISHED: return "FLOW_FINISHED";
    case FLOWD_DISMISS_FLOW_TERMINATED: return "FLOW_TERMINATED";
    case FLOWD_DISMISS_USER_NAVIGATION: return "USER_NAVIGATION";
    case FLOWD_DISMISS_SHUTDOWN: return "SHUTDOWN";
    case FLOWD_DISMISS_REMOVED: return "REMOVED";
    case FLOWD_DISMISS_ACK_TIMEOUT: return "ACK_TIMEOUT";
    case FLOWD_DISMISS_RESUMED: return "RESUMED";
    case FLOWD_DISMISS_CONNECTION_LOST: return "CONNECTION_LOST";
    default: return "UNSPECIFIED";
    }
}

static const char *change_name(int change) {
    static const char *const names[] = {"UNSPECIFIED", "COVERED", "UNCOVERED", "MOVED", "TAB_SELECTED", "TAB_DESELECTED"};
    return change >= 0 && change <= 5 ? names[change] : "UNSPECIFIED";
}

static seen_screen *live(record *rec, uint64_t id) {
    for (int i = rec->screen_count - 1; i >= 0; i--)
        if (rec->screens[i].id == id) return rec->screens[i].dismissed ? NULL : &rec->screens[i];
    return NULL;
}

static void line(record *rec, const char *format, const char *a, const char *b) {
    char text[sizeof rec->lines[0]]; /* a and b may be fields of rec */
    snprintf(text, sizeof text, format, a, b);
    if (rec->line_count < 64) memcpy(rec->lines[rec->line_count++], text, sizeof text);
}

static void set_placement(seen_screen *screen, const flowd_placement *placement) {
    screen->visible = placement->visible;
    screen->stack_index = flowd_placement_stack_index(placement);
    screen->modal = flowd_placement_is_modal(placement);
    screen->path_count = (int)(placement->path_count < 8 ? placement->path_count : 8);
    for (int i = 0; i < screen->path_count; i++) screen->path_kinds[i] = placement->path[i].kind;
    if (placement->path_count) {
        screen->window_id = placement->path[0].id;
        snprintf(screen->window_display, sizeof screen->window_display, "%s", placement->path[0].display);
    }
    uint32_t tab = 0;
    screen->tab_count = 0;
    flowd_placement_tab(placement, &tab, &screen->tab_count);
}

static void on_placed(flowd_screen_host *host, const flowd_place *place, void *user) {
    record *rec = user;
    if (rec->screen_count == 64) return;
    if (rec->save_in_placed) /* allowed in a callback: the Place's pointers stay valid */
        flowd_screen_save_state(host, place->screen_id, "saved inside placed", 19, NULL);
    seen_screen *screen = &rec->screens[rec->screen_count++];
    memset(screen, 0, sizeof *screen);
    card state;
    card_decode(place->state.data, place->state.size, &state);
    screen->id = place->screen_id;
    snprintf(screen->kind, sizeof screen->kind, "%s", place->kind);
    snprintf(screen->title, sizeof screen->title, "%s", state.title);
    snprintf(screen->saved, sizeof screen->saved, "%.*s", (int)place->saved_state_size, (const char *)place->saved_state);
    snprintf(screen->token, sizeof screen->token, "%s", place->display_token);
    screen->serial = place->serial;
    screen->animated = place->animated;
    set_placement(screen, &place->placement);
    line(rec, "+ %s %s", place->kind, state.title);
    if (rec->defer_places) flowd_screen_defer_ack(host);
}

static void on_updated(flowd_screen_host *host, const flowd_update *update, void *user) {
    (void)host;
    record *rec = user;
    seen_screen *screen = live(rec, update->screen_id);
    if (!screen) return;
    card state;
    card_decode(update->state.data, update->state.size, &state);
    snprintf(screen->title, sizeof screen->title, "%s", state.title);
    screen->serial = update->serial;
    line(rec, "~ %s %s", screen->kind, state.title);
}

static void on_placement_changed(flowd_screen_host *host, const flowd_placement_changed *change, void *user) {
    (void)host;
    record *rec = user;
    seen_screen *screen = live(rec, change->screen_id);
    if (!screen) return;
    set_placement(screen, &change->placement);
    screen->serial = change->serial;
    line(rec, "> %s %s", screen->title, change_name(change->change));
}

static void on_dismissed(flowd_screen_host *host, const flowd_dismiss *dismiss, void *user) {
    record *rec = user;
    seen_screen *screen = live(rec, dismiss->screen_id);
    if (!screen) return;
    screen->dismissed = true;
    screen->dismiss_reason = dismiss->reason;
    line(rec, "- %s %s", screen->title, reason_name(dismiss->reason));
    if (rec->stop_on_dismiss) flowd_screen_stop(host);
}

static void on_error(flowd_screen_host *host, const flowd_error *error, void *user) {
    (void)host;
    record *rec = user;
    if (rec->error_count < 16) rec->errors[rec->error_count++] = *error;
}

static void on_pong(flowd_screen_host *host, uint64_t nonce, void *user) {
    (void)host;
    record *rec = user;
    if (rec->pong_count < 16) rec->pongs[rec->pong_count++] = nonce;
}

static void on_connection(flowd_screen_host *host, const flowd_connection_event *event, void *user) {
    (void)host;
    record *rec = user;
    if (rec->connection_event_count < 16) rec->connection_events[rec->connection_event_count++] = event->kind;
    if (event->kind == FLOWD_CONNECTION_RESENT) rec->resent += event->inputs;
    if (getenv("FLOWD_SCREEN_TEST_VERBOSE")) fprintf(stderr, "  connection: %s\n", event->text);
}

static void on_welcomed(flowd_screen_host *host, const flowd_welcome *welcome, void *user) {
    (void)host;
    (void)welcome;
    ((record *)user)->welcomed = true;
}

void record_callbacks(flowd_screen_options *options, record *rec) {
    options->callbacks.welcomed = on_welcomed;
    options->callbacks.placed = on_placed;
    options->callbacks.updated = on_updated;
    options->callbacks.placement_changed = on_placement_changed;
    options->callbacks.dismissed = on_dismissed;
    options->callbacks.error = on_error;
    options->callbacks.pong = on_pong;
    options->callbacks.connection = on_connection;
    options->user = rec;
}

flowd_screen_host *record_connect(record *rec, const char *path, const char *const *kinds, flowd_screen_options *base) {
    memset(rec, 0, sizeof *rec);
    flowd_screen_options options;
    if (base) options = *base; else flowd_screen_options_init(&options);
    size_t count = 0;
    while (kinds && kinds[count]) count++;
    options.name = "libflowd-screen tests";
    options.provides = kinds;
    options.provides_count = count;
    options.socket_path = path;
    record_callbacks(&options, rec);
    flowd_error error;
    rec->host = flowd_screen_connect(&options, &error);
    if (!rec->host) {
        fprintf(stderr, "connect: %s %s\n", flowd_error_name(error.code), error.message);
        check_failed(__FILE__, __LINE__, "the host connects");
    }
    return rec->host;
}

seen_screen *record_screen(record *rec, const char *title) {
    for (int i = rec->screen_count - 1; i >= 0; i--)
        if (!strcmp(rec->screens[i].title, title) && !rec->screens[i].dismissed) return &rec->screens[i];
    char text[200];
    snprintf(text, sizeof text, "a live screen titled '%s'", title);
    check_failed(__FILE__, __LINE__, text);
    return NULL;
}

bool host_ended(record *rec) {
    return flowd_screen_end(rec->host)->reason != FLOWD_END_NONE;
}

bool run_until(record *rec, bool (*done)(record *), int timeout_ms) {
    long long deadline = now_ms() + timeout_ms;
    while (!done(rec) && !host_ended(rec) && now_ms() < deadline) {
        struct pollfd watch = {.fd = flowd_screen_fd(rec->host), .events = flowd_screen_events(rec->host)};
        int wait = flowd_screen_timeout_ms(rec->host);
        int left = (int)(deadline - now_ms());
        if (wait < 0 || wait > left) wait = left > 0 ? left : 0;
        if (wait > 50) wait = 50; /* a reconnect may change the descriptor */
        poll(watch.fd >= 0 ? &watch : NULL, watch.fd >= 0 ? 1 : 0, wait);
        flowd_screen_dispatch(rec->host);
    }
    return done(rec);
}

static uint64_t awaited_pong, awaited_connection;

static bool ponged(record *rec) {
    for (int i = 0; i < rec->pong_count; i++)
        if (rec->pongs[i] == awaited_pong) return true;
    return false;
}

/* The Pong came, or the host is on a new connection (where the old Ping's Pong never comes). */
static bool ponged_or_moved(record *rec) {
    const flowd_welcome *welcome = flowd_screen_welcome(rec->host);
    return ponged(rec) || (welcome && welcome->connection_id != awaited_connection);
}

static bool ready_to_ping(record *rec) {
    const flowd_welcome *welcome = flowd_screen_welcome(rec->host);
    uint64_t nonce;
    if (!welcome || flowd_screen_ping(rec->host, &nonce, NULL) < 0) return false; /* reconnecting */
    awaited_pong = nonce;
    awaited_connection = welcome->connection_id;
    return true;
}

static long long left_of(long long deadline) {
    long long left = deadline - now_ms();
    return left > 0 ? left : 0;
}

void barrier(record *rec, int timeout_ms) {
    long long deadline = now_ms() + timeout_ms;
    for (;;) {
        if (!run_until(rec, ready_to_ping, (int)left_of(deadline))) check_failed(__FILE__, __LINE__, "the host can ping");
        if (!run_until(rec, ponged_or_moved, (int)left_of(deadline))) check_failed(__FILE__, __LINE__, "the Pong arrives");
        if (ponged(rec)) return;
    }
}

/* ---- The recording display ----------------------------------------------------------------------- */

static void walk(seen_scene *seen, const flowd_scene_node *node, int depth, bool presented) {
    if (depth > seen->max_depth) seen->max_depth = depth;
    if (seen->node_count < (int)(sizeof seen->nodes / sizeof *seen->nodes)) {
        seen_node *into = &seen->nodes[seen->node_count++];
        memset(into, 0, sizeof *into);
        into->id = node->id;
        into->kind = node->kind;
        into->depth = depth;
        into->presented = presented;
        into->child_count = node->child_count;
        into->selected_tab = node->selected_tab;
        snprintf(into->screen_kind, sizeof into->screen_kind, "%s", node->screen_kind);
        into->visible = node->visible;
        into->flow_id = node->flow_id;
        snprintf(into->flow_type, sizeof into->flow_type, "%s", node->flow_type);
        snprintf(into->token, sizeof into->token, "%s", node->display_token);
    }
    /* Every node is read (ASan and valgrind watch): the library bounds the depth, so may we. */
    for (size_t i = 0; i < node->child_count; i++) walk(seen, &node->children[i], depth + 1, false);
    if (node->presented) walk(seen, node->presented, depth + 1, true);
}

static void on_scene(flowd_display *display, const flowd_scene *scene, void *user) {
    (void)display;
    display_record *rec = user;
    seen_scene *seen = &rec->scenes[rec->scene_count < 32 ? rec->scene_count : 31];
    memset(seen, 0, sizeof *seen);
    seen->seq = scene->seq;
    snprintf(seen->app, sizeof seen->app, "%s", scene->app);
    seen->transition = scene->transition;
    seen->animated = scene->animated;
    seen->from_screen = scene->from_screen;
    seen->to_screen = scene->to_screen;
    seen->visible_screen = scene->visible_screen;
    if (!scene->window) check_failed(__FILE__, __LINE__, "a scene has a window");
    walk(seen, scene->window, 1, false);
    for (size_t i = 0; i < scene->other_window_count; i++) {
        const flowd_scene_window *window = &scene->other_windows[i];
        if (!window->window || !window->display) check_failed(__FILE__, __LINE__, "a scene's window has a node and a display");
        walk(seen, window->window, 1, false);
        if (seen->window_count < 4) {
            seen->windows[seen->window_count].id = window->window->id;
            seen->windows[seen->window_count].visible_screen = window->visible_screen;
            seen->windows[seen->window_count].transition = window->transition;
            snprintf(seen->windows[seen->window_count].display, sizeof seen->windows[0].display, "%s", window->display);
            seen->window_count++;
        }
    }
    rec->scene_count++;
}

static void on_display_welcomed(flowd_display *display, const flowd_welcome *welcome, void *user) {
    (void)display;
    display_record *rec = user;
    rec->welcomed = true;
    snprintf(rec->app, sizeof rec->app, "%s", welcome->app);
}

static void on_display_error(flowd_display *display, const flowd_error *error, void *user) {
    (void)display;
    display_record *rec = user;
    if (rec->error_count < 16) rec->errors[rec->error_count++] = *error;
}

static void on_display_pong(flowd_display *display, uint64_t nonce, void *user) {
    (void)display;
    display_record *rec = user;
    if (rec->pong_count < 16) rec->pongs[rec->pong_count++] = nonce;
}

void display_callbacks(flowd_display_options *options, display_record *rec) {
    options->callbacks.welcomed = on_display_welcomed;
    options->callbacks.scene = on_scene;
    options->callbacks.error = on_display_error;
    options->callbacks.pong = on_display_pong;
    options->user = rec;
}

flowd_display *display_connect(display_record *rec, const char *path) {
    memset(rec, 0, sizeof *rec);
    flowd_display_options options;
    flowd_display_options_init(&options);
    options.name = "libflowd-screen test display";
    options.socket_path = path;
    display_callbacks(&options, rec);
    flowd_error error;
    rec->display = flowd_display_connect(&options, &error);
    if (!rec->display) {
        fprintf(stderr, "display connect: %s %s\n", flowd_error_name(error.code), error.message);
        check_failed(__FILE__, __LINE__, "the display connects");
    }
    return rec->display;
}

const seen_scene *display_last(display_record *rec) {
    if (!rec->scene_count) check_failed(__FILE__, __LINE__, "a scene arrived");
    return &rec->scenes[rec->scene_count <= 32 ? rec->scene_count - 1 : 31];
}

const seen_node *scene_node(const seen_scene *scene, uint64_t id) {
    for (int i = 0; i < scene->node_count; i++)
        if (scene->nodes[i].id == id && scene->nodes[i].kind == FLOWD_NODE_SCREEN) return &scene->nodes[i];
    char text[80];
    snprintf(text, sizeof text, "screen %llu in the scene", (unsigned long long)id);
    check_failed(__FILE__, __LINE__, text);
    return NULL;
}

bool display_ended(display_record *rec) {
    return flowd_display_end(rec->display)->reason != FLOWD_END_NONE;
}

bool display_run_until(display_record *rec, bool (*done)(display_record *), int timeout_ms) {
    long long deadline = now_ms() + timeout_ms;
    while (!done(rec) && !display_ended(rec) && now_ms() < deadline) {
        struct pollfd watch = {.fd = flowd_display_fd(rec->display), .events = flowd_display_events(rec->display)};
        int wait = flowd_display_timeout_ms(rec->display);
        int left = (int)(deadline - now_ms());
        if (wait < 0 || wait > left) wait = left > 0 ? left : 0;
        poll(watch.fd >= 0 ? &watch : NULL, watch.fd >= 0 ? 1 : 0, wait);
        flowd_display_dispatch(rec->display);
    }
    return done(rec);
}

static uint64_t awaited_display_pong;

static bool display_welcomed(display_record *rec) {
    return rec->welcomed;
}

static bool display_ponged(display_record *rec) {
    for (int i = 0; i < rec->pong_count; i++)
        if (rec->pongs[i] == awaited_display_pong) return true;
    return false;
}

void display_barrier(display_record *rec, int timeout_ms) {
    long long deadline = now_ms() + timeout_ms;
    if (!display_run_until(rec, display_welcomed, (int)left_of(deadline))) check_failed(__FILE__, __LINE__, "the display is welcomed");
    flowd_error error;
    if (flowd_display_ping(rec->display, &awaited_display_pong, &error) < 0) {
        fprintf(stderr, "display ping: %s\n", error.message);
        check_failed(__FILE__, __LINE__, "the display can ping");
    }
    if (!display_run_until(rec, display_ponged, (int)left_of(deadline))) check_failed(__FILE__, __LINE__, "the display's Pong arrives");
}
