/* libflowd-screen against a real flowd: the conformance suite the Python library has, in C.
 *
 *   conformance [NAME...]     runs every test (or those named), each in a process of its own
 *
 * FLOWD_BINARY names the flowd to test (scripts/libflowd-screen test sets it). */
#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "display.h"
#include "support.h"
#include "wire.h"

static daemon_process *daemons[4];
static proxy *current_proxy;

void check_failed(const char *file, int line, const char *text) {
    fprintf(stderr, "  %s:%d: check failed: %s\n", file, line, text);
    if (current_proxy) proxy_close(current_proxy);
    for (int i = 0; i < 4; i++)
        if (daemons[i]) {
            char *log = daemon_log(daemons[i]);
            if (getenv("FLOWD_SCREEN_TEST_VERBOSE") && log) fprintf(stderr, "--- flowd's log ---\n%s\n", log);
            free(log);
            daemon_stop(daemons[i]);
        }
    exit(1);
}

static daemon_process *start(const char *app, const char *const *arguments) {
    static daemon_process storage[4];
    for (int i = 0; i < 4; i++)
        if (!daemons[i]) {
            daemon_start(&storage[i], app, NULL, arguments);
            return daemons[i] = &storage[i];
        }
    check_failed(__FILE__, __LINE__, "at most 4 daemons");
    return NULL;
}

static void finish(void) {
    if (current_proxy) proxy_close(current_proxy);
    current_proxy = NULL;
    for (int i = 0; i < 4; i++)
        if (daemons[i]) daemon_stop(daemons[i]);
}

static const char *const ITEM[] = {"item", NULL};

static int error_count_of(record *rec, int code) {
    int count = 0;
    for (int i = 0; i < rec->error_count; i++) count += rec->errors[i].code == code;
    return count;
}

static const flowd_error *error_of(record *rec, int code) {
    for (int i = 0; i < rec->error_count; i++)
        if (rec->errors[i].code == code) return &rec->errors[i];
    check_failed(__FILE__, __LINE__, flowd_error_name(code));
    return NULL;
}

static bool has_line(record *rec, const char *text) {
    for (int i = 0; i < rec->line_count; i++)
        if (!strcmp(rec->lines[i], text)) return true;
    return false;
}

static bool has_event(record *rec, int kind) {
    for (int i = 0; i < rec->connection_event_count; i++)
        if (rec->connection_events[i] == kind) return true;
    return false;
}

/* Place.display_token: 32 lowercase hex digits. */
static bool is_display_token(const char *token) {
    return strlen(token) == 32 && strspn(token, "0123456789abcdef") == 32;
}

/* ---- Handshake and screens ------------------------------------------------------------------ */

static void test_handshake_says_who_flowd_is_and_reports_unknown_kinds(void) {
    daemon_process *daemon = start("tutorial", NULL);
    record rec;
    const char *const kinds[] = {"tutorial", "no-such-kind", NULL};
    record_connect(&rec, daemon->socket_path, kinds, NULL);
    barrier(&rec, 5000);
    const flowd_welcome *welcome = flowd_screen_welcome(rec.host);
    CHECK(welcome);
    CHECK_STR(welcome->app, "tutorial");
    CHECK(!strncmp(welcome->server, "flowd ", 6));
    CHECK(welcome->connection_id > 0);
    CHECK_EQ_INT(welcome->resume_grace_ms, 5000);
    CHECK(!welcome->resumed && !welcome->spawned);
    CHECK_EQ_INT(rec.line_count, 1);
    CHECK_STR(rec.lines[0], "+ tutorial Welcome");
    CHECK(is_display_token(rec.screens[0].token));
    const flowd_error *unknown = error_of(&rec, FLOWD_ERROR_UNKNOWN_KIND);
    CHECK(strstr(unknown->message, "no-such-kind"));
    CHECK(!unknown->fatal);
    flowd_screen_free(rec.host);
}

static bool ended(record *rec) {
    return host_ended(rec);
}

static void test_placed_updated_and_dismissed(void) {
    daemon_process *daemon = start("mirror", NULL);
    record rec;
    const char *const kinds[] = {"item", "tutorial", NULL};
    record_connect(&rec, daemon->socket_path, kinds, NULL);
    barrier(&rec, 5000);
    CHECK_EQ_INT(rec.screen_count, 2);
    seen_screen *item = &rec.screens[0], *mirror = &rec.screens[1];
    CHECK_STR(item->kind, "item");
    CHECK_STR(mirror->kind, "tutorial");
    CHECK_EQ_INT(item->path_count, 3);
    CHECK_EQ_INT(item->path_kinds[0], FLOWD_NODE_WINDOW);
    CHECK_EQ_INT(item->path_kinds[1], FLOWD_NODE_TAB_BAR);
    CHECK_EQ_INT(item->path_kinds[2], FLOWD_NODE_SCREEN);
    CHECK_EQ_INT(item->tab_count, 2);
    CHECK(item->visible && !mirror->visible);

    CHECK_EQ_INT(flowd_screen_send_json(rec.host, item->id, PRESS(0), NULL), 0); /* Count: both get a new state */
    barrier(&rec, 5000);
    CHECK_STR(rec.lines[rec.line_count - 2], "~ item Count 1");
    CHECK_STR(rec.lines[rec.line_count - 1], "~ tutorial Count 1");

    CHECK_EQ_INT(flowd_screen_send_json(rec.host, item->id, PRESS(1), NULL), 0); /* Finish: the app ends */
    run_until(&rec, ended, 10000);
    const flowd_end *end = flowd_screen_end(rec.host);
    CHECK_EQ_INT(end->reason, FLOWD_END_SHUTDOWN);
    CHECK_EQ_INT(end->shutdown_reason, FLOWD_SHUTDOWN_APP_FINISHED);
    CHECK_STR(rec.lines[rec.line_count - 2], "- Count 1 FLOW_FINISHED");
    CHECK_STR(rec.lines[rec.line_count - 1], "- Count 1 FLOW_FINISHED");
    CHECK_EQ_INT(flowd_screen_count(rec.host), 0);
    CHECK_EQ_INT(daemon_wait(daemon, 10000), 0);
    flowd_screen_free(rec.host);
}

static void test_an_output_round_trip_is_complete_when_ping_returns(void) {
    daemon_process *daemon = start("deep-stack", NULL);
    record rec;
    record_connect(&rec, daemon->socket_path, ITEM, NULL);
    barrier(&rec, 5000);
    seen_screen *first = record_screen(&rec, "Item 1");
    CHECK_EQ_INT(first->stack_index, 0);
    CHECK(!first->animated);
    CHECK_EQ_INT(flowd_screen_send_json(rec.host, first->id, PRESS(0), NULL), 0); /* Push */
    barrier(&rec, 5000); /* the Place and PlacementChanged the output caused are handled by now */
    seen_screen *second = record_screen(&rec, "Item 2");
    CHECK_EQ_INT(second->stack_index, 1);
    CHECK(second->animated);
    CHECK_EQ_INT(rec.line_count, 3);
    CHECK_STR(rec.lines[1], "+ item Item 2");
    CHECK_STR(rec.lines[2], "> Item 1 COVERED");
    CHECK(!first->visible);
    CHECK_EQ_INT(rec.error_count, 0);
    flowd_screen_free(rec.host);
}

/* ---- Navigation -------------------------------------------------------------------------------- */

static void test_back_with_a_cancelled_and_a_committed_gesture(void) {
    daemon_process *daemon = start("deep-stack", NULL);
    record rec;
    record_connect(&rec, daemon->socket_path, ITEM, NULL);
    barrier(&rec, 5000);
    flowd_screen_send_json(rec.host, record_screen(&rec, "Item 1")->id, PRESS(0), NULL);
    barrier(&rec, 5000);
    seen_screen *second = record_screen(&rec, "Item 2");
    CHECK_EQ_INT(flowd_screen_back(rec.host, second->id, FLOWD_PHASE_BEGIN, NULL), 0);
    CHECK_EQ_INT(flowd_screen_back(rec.host, second->id, FLOWD_PHASE_CANCEL, NULL), 0); /* a swipe given up */
    barrier(&rec, 5000);
    CHECK(!second->dismissed);
    CHECK_EQ_INT(flowd_screen_back(rec.host, second->id, FLOWD_PHASE_BEGIN, NULL), 0);
    CHECK_EQ_INT(flowd_screen_back(rec.host, second->id, FLOWD_PHASE_COMMIT, NULL), 0);
    barrier(&rec, 5000);
    CHECK(second->dismissed);
    CHECK_EQ_INT(second->dismiss_reason, FLOWD_DISMISS_USER_NAVIGATION);
    CHECK_STR(rec.lines[rec.line_count - 2], "- Item 2 USER_NAVIGATION");
    CHECK_STR(rec.lines[rec.line_count - 1], "> Item 1 UNCOVERED");
    CHECK(record_screen(&rec, "Item 1")->visible);
    CHECK_EQ_INT(rec.error_count, 0);
    flowd_screen_free(rec.host);
}

static void test_close_modal(void) {
    daemon_process *daemon = start("modal", NULL);
    record rec;
    record_connect(&rec, daemon->socket_path, ITEM, NULL);
    barrier(&rec, 5000);
    flowd_screen_send_json(rec.host, record_screen(&rec, "Home")->id, PRESS(0), NULL); /* Present */
    barrier(&rec, 5000);
    seen_screen *detail = record_screen(&rec, "Detail 1");
    CHECK(detail->modal);
    CHECK_EQ_INT(flowd_screen_close_modal(rec.host, detail->id, FLOWD_PHASE_IMMEDIATE, NULL), 0);
    barrier(&rec, 5000);
    CHECK_EQ_INT(detail->dismiss_reason, FLOWD_DISMISS_USER_NAVIGATION);
    CHECK(record_screen(&rec, "Home")->visible);
    flowd_screen_free(rec.host);
}

static void test_select_tab(void) {
    daemon_process *daemon = start("mirror", NULL);
    record rec;
    const char *const kinds[] = {"item", "tutorial", NULL};
    record_connect(&rec, daemon->socket_path, kinds, NULL);
    barrier(&rec, 5000);
    seen_screen *item = &rec.screens[0], *mirror = &rec.screens[1];
    CHECK_EQ_INT(flowd_screen_select_tab(rec.host, item->id, 1, NULL), 0);
    barrier(&rec, 5000);
    CHECK(!item->visible && mirror->visible);
    CHECK(has_line(&rec, "> Count 0 TAB_SELECTED")); /* a tab switch is TAB_SELECTED, never UNCOVERED */
    CHECK(has_line(&rec, "> Count 0 TAB_DESELECTED"));
    CHECK(!has_line(&rec, "> Count 0 UNCOVERED"));
    flowd_screen_free(rec.host);
}

/* ---- Errors -------------------------------------------------------------------------------------- */

static void test_bad_inputs_are_typed_errors_and_the_host_carries_on(void) {
    daemon_process *daemon = start("deep-stack", NULL);
    record rec;
    record_connect(&rec, daemon->socket_path, ITEM, NULL);
    barrier(&rec, 5000);
    seen_screen *first = record_screen(&rec, "Item 1");
    CHECK_EQ_INT(flowd_screen_send_json(rec.host, first->id, "{\"nonsense\":{}}", NULL), 0);
    CHECK_EQ_INT(flowd_screen_back(rec.host, first->id, FLOWD_PHASE_IMMEDIATE, NULL), 0); /* its stack's root */
    CHECK_EQ_INT(flowd_screen_ack(rec.host, first->id, 99, NULL), 0);
    flowd_payload text = {.content_type = "text/plain", .data = (const uint8_t *)"hi", .size = 2};
    CHECK_EQ_INT(flowd_screen_send_output(rec.host, first->id, &text, NULL), 0);
    barrier(&rec, 5000);
    CHECK_EQ_INT(rec.error_count, 4);
    CHECK_EQ_INT(rec.errors[0].code, FLOWD_ERROR_BAD_PAYLOAD);
    CHECK_EQ_INT(rec.errors[0].screen_id, first->id);
    CHECK(!rec.errors[0].fatal);
    CHECK_EQ_INT(rec.errors[1].code, FLOWD_ERROR_INVALID_NAVIGATION);
    CHECK_EQ_INT(rec.errors[2].code, FLOWD_ERROR_UNKNOWN_SERIAL);
    CHECK_EQ_INT(rec.errors[2].serial, 99);
    CHECK_EQ_INT(rec.errors[3].code, FLOWD_ERROR_BAD_PAYLOAD);
    CHECK(strstr(rec.errors[3].message, "text/plain")); /* names both content types */
    CHECK(strstr(rec.errors[3].message, "flowd.demo.v1.CardOutput"));
    CHECK_EQ_INT(flowd_screen_send_json(rec.host, first->id, PRESS(0), NULL), 0);
    barrier(&rec, 5000);
    record_screen(&rec, "Item 2");
    flowd_screen_free(rec.host);
}

static bool detail_gone_or_timeout(record *rec) {
    return error_count_of(rec, FLOWD_ERROR_ACK_TIMEOUT) > 0;
}

static bool detail_gone(record *rec) {
    for (int i = 0; i < rec->screen_count; i++)
        if (!strcmp(rec->screens[i].title, "Detail 1") && rec->screens[i].dismissed) return true;
    return false;
}

static void test_an_unacked_command_times_out_and_the_screen_goes(void) {
    const char *const arguments[] = {"--ack-timeout", "0.5", NULL};
    daemon_process *daemon = start("modal", arguments);
    flowd_screen_options options;
    flowd_screen_options_init(&options);
    options.manual_acks = true;
    record rec;
    record_connect(&rec, daemon->socket_path, ITEM, &options);
    barrier(&rec, 5000);
    seen_screen *home = record_screen(&rec, "Home");
    CHECK_EQ_INT(flowd_screen_ack(rec.host, home->id, home->serial, NULL), 0); /* by hand: Home stays */
    flowd_screen_send_json(rec.host, home->id, PRESS(0), NULL);               /* Present: never acked */
    barrier(&rec, 5000);
    CHECK_EQ_INT(flowd_screen_ack(rec.host, home->id, home->serial, NULL), 0); /* its PlacementChanged */
    CHECK(run_until(&rec, detail_gone, 5000));
    seen_screen *detail = &rec.screens[rec.screen_count - 1];
    CHECK_EQ_INT(detail->dismiss_reason, FLOWD_DISMISS_ACK_TIMEOUT);
    const flowd_error *timeout = error_of(&rec, FLOWD_ERROR_ACK_TIMEOUT);
    CHECK_EQ_INT(timeout->screen_id, detail->id);
    CHECK(!timeout->fatal);
    barrier(&rec, 5000);
    CHECK(!home->dismissed);
    CHECK_EQ_INT(flowd_screen_count(rec.host), 1);
    flowd_screen_free(rec.host);
}

static bool never(record *rec) {
    (void)rec;
    return false;
}

static void test_a_deferred_ack_is_sent_by_hand(void) {
    const char *const arguments[] = {"--ack-timeout", "0.5", NULL};
    daemon_process *daemon = start("deep-stack", arguments);
    record rec;
    record_connect(&rec, daemon->socket_path, ITEM, NULL);
    rec.defer_places = true; /* every Place waits for an ack by hand */
    barrier(&rec, 5000);
    seen_screen *first = record_screen(&rec, "Item 1");
    CHECK_EQ_INT(flowd_screen_ack(rec.host, first->id, first->serial, NULL), 0); /* drawn: acked in time */
    run_until(&rec, never, 1000); /* twice the ack timeout */
    CHECK_EQ_INT(error_count_of(&rec, FLOWD_ERROR_ACK_TIMEOUT), 0);
    flowd_screen_send_json(rec.host, first->id, PRESS(0), NULL); /* Item 2: deferred and never acked */
    CHECK(run_until(&rec, detail_gone_or_timeout, 3000));
    seen_screen *second = &rec.screens[rec.screen_count - 1];
    CHECK_STR(second->title, "Item 2");
    CHECK_EQ_INT(second->dismiss_reason, FLOWD_DISMISS_ACK_TIMEOUT);
    CHECK(!first->dismissed);
    flowd_screen_free(rec.host);
}

static void test_local_misuse_is_refused_before_sending(void) {
    daemon_process *daemon = start("deep-stack", NULL);
    record rec;
    record_connect(&rec, daemon->socket_path, ITEM, NULL);
    flowd_error error;
    CHECK_EQ_INT(flowd_screen_ping(rec.host, NULL, &error), -1); /* no Welcome yet */
    CHECK_EQ_INT(error.code, FLOWD_ERROR_CLOSED);
    barrier(&rec, 5000);
    seen_screen *first = record_screen(&rec, "Item 1");
    CHECK_EQ_INT(flowd_screen_send_json(rec.host, 424242, PRESS(0), &error), -1);
    CHECK_EQ_INT(error.code, FLOWD_ERROR_NOT_HOSTED);
    CHECK(strstr(error.message, "424242"));
    CHECK_EQ_INT(flowd_screen_back(rec.host, first->id, (flowd_phase)7, &error), -1);
    CHECK_EQ_INT(error.code, FLOWD_ERROR_INVALID_ARGUMENT);
    static char big[FLOWD_SCREEN_MAX_SAVED_STATE + 1];
    CHECK_EQ_INT(flowd_screen_save_state(rec.host, first->id, big, sizeof big, &error), -1);
    CHECK_EQ_INT(error.code, FLOWD_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "16384"));
    CHECK_EQ_INT(flowd_screen_send_json(rec.host, first->id, NULL, &error), -1);
    CHECK_EQ_INT(flowd_screen_send_output(rec.host, first->id, NULL, &error), -1);
    CHECK_EQ_INT(flowd_screen_ack(rec.host, first->id, 0, &error), -1);
    CHECK_EQ_INT(flowd_screen_open_link(rec.host, NULL, &error), -1);
    CHECK_EQ_INT(error.code, FLOWD_ERROR_INVALID_ARGUMENT);
    barrier(&rec, 5000);
    CHECK_EQ_INT(rec.error_count, 0); /* nothing reached flowd */
    flowd_screen_free(rec.host);
}

static void test_a_fatal_error_ends_the_host(void) {
    daemon_process *daemon = start("deep-stack", NULL);
    record rec;
    record_connect(&rec, daemon->socket_path, ITEM, NULL);
    barrier(&rec, 5000);
    /* A second Hello breaks the protocol: written past the library, on its descriptor. */
    fw_buffer hello = {0}, frame = {0};
    fw_put_varint_field(&hello, 1, 1);
    fw_put_varint_field(&hello, 2, 1);
    fw_put_varint_field(&hello, 3, 1);
    fw_put_frame(&frame, 99, 0, FW_HELLO, &hello);
    CHECK(write(flowd_screen_fd(rec.host), frame.data, frame.size) == (ssize_t)frame.size);
    fw_buffer_free(&hello);
    fw_buffer_free(&frame);
    run_until(&rec, ended, 5000);
    const flowd_end *end = flowd_screen_end(rec.host);
    CHECK_EQ_INT(end->reason, FLOWD_END_ERROR);
    CHECK_EQ_INT(end->error.code, FLOWD_ERROR_UNEXPECTED_MESSAGE);
    CHECK(end->error.fatal);
    CHECK(!has_event(&rec, FLOWD_CONNECTION_DROPPED)); /* broken, not dropped: no resume */
    flowd_error error;
    CHECK_EQ_INT(flowd_screen_ping(rec.host, NULL, &error), -1);
    CHECK_EQ_INT(error.code, FLOWD_ERROR_CLOSED);
    CHECK_EQ_INT(flowd_screen_dispatch(rec.host), 1); /* stays ended */
    CHECK_EQ_INT(flowd_screen_fd(rec.host), -1);
    flowd_screen_free(rec.host);
}

static void test_connecting_and_spawning_errors(void) {
    flowd_screen_options options;
    flowd_screen_options_init(&options);
    flowd_error error;
    options.socket_path = "/tmp/no-such-dir-for-flowd/flowd.sock";
    CHECK(!flowd_screen_connect(&options, &error));
    CHECK_EQ_INT(error.code, FLOWD_ERROR_CONNECT);
    CHECK(strstr(error.message, "/tmp/no-such-dir-for-flowd/flowd.sock"));
    static char long_path[200];
    memset(long_path, 'x', sizeof long_path - 1);
    long_path[0] = '/';
    options.socket_path = long_path;
    CHECK(!flowd_screen_connect(&options, &error));
    CHECK_EQ_INT(error.code, FLOWD_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "over the 107"));
    options.socket_path = "/tmp/x.sock";
    options.max_frame_size = 100;
    CHECK(!flowd_screen_connect(&options, &error));
    CHECK_EQ_INT(error.code, FLOWD_ERROR_INVALID_ARGUMENT);
    options.max_frame_size = 0;
    CHECK(!flowd_screen_connect(NULL, &error));
    CHECK_EQ_INT(error.code, FLOWD_ERROR_INVALID_ARGUMENT);

    unsetenv("FLOWD_SOCKET_FD");
    CHECK(!flowd_screen_is_spawned());
    CHECK(!flowd_screen_spawned(&options, &error));
    CHECK_EQ_INT(error.code, FLOWD_ERROR_NOT_SPAWNED);
    setenv("FLOWD_SOCKET_FD", "three", 1);
    CHECK(!flowd_screen_spawned(&options, &error));
    CHECK_EQ_INT(error.code, FLOWD_ERROR_NOT_SPAWNED);
    CHECK(strstr(error.message, "three"));
    setenv("FLOWD_SOCKET_FD", "3", 1);
    unsetenv("FLOWD_TOKEN");
    CHECK(!flowd_screen_spawned(&options, &error));
    CHECK(strstr(error.message, "FLOWD_TOKEN"));
    setenv("FLOWD_TOKEN", "t", 1);
    setenv("FLOWD_SOCKET_FD", "999", 1);
    CHECK(!flowd_screen_spawned(&options, &error));
    CHECK(strstr(error.message, "not an open descriptor"));
    unsetenv("FLOWD_SOCKET_FD");
    CHECK_STR(flowd_error_name(FLOWD_ERROR_RESUME_REFUSED), "RESUME_REFUSED");
    CHECK_STR(flowd_error_name(FLOWD_ERROR_NOT_HOSTED), "NOT_HOSTED");
    CHECK_STR(flowd_error_name(777), "UNSPECIFIED");
}

/* ---- Who serves the socket ------------------------------------------------------------------------- */

/* Another user created the socket's directory first and listens there (docs/protocol.md section 1):
 * an impostor forked and run as nobody (uid 65534; the test must be root, else it is skipped) in a
 * directory nobody owns. It writes to `report` how many bytes its one client sent before closing. */
static pid_t impostor_start(const char *directory, const char *path, int *report) {
    CHECK(mkdir(directory, 0700) == 0);
    CHECK(chown(directory, 65534, 65534) == 0);
    int ready[2], counted[2];
    CHECK(pipe(ready) == 0 && pipe(counted) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(ready[0]);
        close(counted[0]);
        if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(1);
        int server = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un address = {.sun_family = AF_UNIX};
        snprintf(address.sun_path, sizeof address.sun_path, "%s", path);
        if (bind(server, (struct sockaddr *)&address, sizeof address) != 0 || listen(server, 8) != 0) _exit(1);
        if (write(ready[1], "l", 1) != 1) _exit(1);
        int client = accept(server, NULL, NULL);
        long count = 0;
        char buffer[4096];
        ssize_t got;
        while ((got = read(client, buffer, sizeof buffer)) > 0) count += got;
        dprintf(counted[1], "%ld\n", count);
        _exit(0);
    }
    close(ready[1]);
    close(counted[1]);
    char started = 0;
    CHECK(read(ready[0], &started, 1) == 1);
    close(ready[0]);
    *report = counted[0];
    return pid;
}

static void test_a_socket_another_user_serves_is_refused_before_anything_is_sent(void) {
    if (getuid() != 0) {
        printf("     (skipped: needs root, the impostor runs as another user)\n");
        return;
    }
    char base[] = "/tmp/fcs-XXXXXX";
    CHECK(mkdtemp(base) && chmod(base, 0755) == 0);
    char directory[64], path[96];
    snprintf(directory, sizeof directory, "%s/imp", base);
    snprintf(path, sizeof path, "%s/flowd.sock", directory);
    int report = -1;
    pid_t impostor = impostor_start(directory, path, &report);

    flowd_screen_options options;
    flowd_screen_options_init(&options);
    options.socket_path = path;
    options.handshake_timeout_ms = 2000;
    flowd_error error = {0};
    flowd_screen_host *host = flowd_screen_connect(&options, &error);
    CHECK(!host);
    CHECK_EQ_INT(error.code, FLOWD_ERROR_UNTRUSTED_SERVER);
    char expected[512];
    snprintf(expected, sizeof expected, "refusing the server at %s: it runs as uid 65534, not as this user (uid 0) or root", path);
    CHECK(strstr(error.message, expected));
    snprintf(expected, sizeof expected, "its directory %s belongs to uid 65534", directory);
    CHECK(strstr(error.message, expected));
    CHECK(strstr(error.message, "nothing was sent"));
    CHECK_STR(flowd_error_name(FLOWD_ERROR_UNTRUSTED_SERVER), "UNTRUSTED_SERVER");

    char counted[32] = {0};
    CHECK(read(report, counted, sizeof counted - 1) > 0);
    CHECK_STR(counted, "0\n"); /* nothing was sent to it */
    close(report);
    waitpid(impostor, NULL, 0);
    unlink(path);
    rmdir(directory);
    rmdir(base);
}

/* ---- Bad bytes from the other side: the test plays flowd on a socket pair ----------------------- */

static flowd_screen_host *host_on_pair(int *peer, record *rec) {
    int pair[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
    char fd[16];
    snprintf(fd, sizeof fd, "%d", pair[1]);
    setenv("FLOWD_SOCKET_FD", fd, 1);
    setenv("FLOWD_TOKEN", "a-token", 1);
    flowd_screen_options options;
    flowd_screen_options_init(&options);
    memset(rec, 0, sizeof *rec);
    record_callbacks(&options, rec);
    flowd_error error;
    rec->host = flowd_screen_open(&options, &error);
    unsetenv("FLOWD_SOCKET_FD");
    CHECK(rec->host);
    *peer = pair[0];
    return rec->host;
}

/* What the host wrote: its frames' envelopes' body fields, in order. */
static int read_bodies(int peer, uint32_t *bodies, int capacity, flowd_error *error_sent) {
    static uint8_t bytes[65536];
    struct pollfd watch = {peer, POLLIN, 0};
    size_t size = 0;
    while (poll(&watch, 1, 200) > 0) {
        ssize_t got = read(peer, bytes + size, sizeof bytes - size);
        if (got <= 0) break;
        size += (size_t)got;
    }
    int count = 0;
    size_t at = 0;
    fw_slice frame;
    size_t used;
    char why[100];
    while (count < capacity && fw_next_frame(bytes + at, size - at, 1 << 20, &frame, &used, why, sizeof why) == 1) {
        fw_envelope envelope;
        CHECK(fw_decode_envelope(frame, &envelope, why, sizeof why) == 0);
        bodies[count++] = envelope.body_field;
        fw_arena arena = {0};
        if (envelope.body_field == FW_ERROR && error_sent) fw_decode_error(envelope.body, &arena, error_sent, why, sizeof why);
        at += used;
    }
    return count;
}

static void write_frame(int peer, uint32_t body_field, const fw_buffer *body) {
    fw_buffer frame = {0};
    fw_put_frame(&frame, 1, 1, body_field, body);
    CHECK(write(peer, frame.data, frame.size) == (ssize_t)frame.size);
    fw_buffer_free(&frame);
}

static void welcome_on(int peer, record *rec) {
    uint32_t bodies[4];
    CHECK_EQ_INT(read_bodies(peer, bodies, 4, NULL), 1);
    CHECK_EQ_INT(bodies[0], FW_HELLO);
    fw_buffer welcome = {0};
    fw_put_varint_field(&welcome, 1, 1);
    fw_put_varint_field(&welcome, 2, 5);
    fw_put_string_field(&welcome, 3, "fake flowd");
    fw_put_varint_field(&welcome, 4, 4096);
    write_frame(peer, FW_WELCOME, &welcome);
    fw_buffer_free(&welcome);
    for (int i = 0; i < 20 && !rec->welcomed; i++) {
        usleep(5000);
        flowd_screen_dispatch(rec->host);
    }
    CHECK(rec->welcomed);
    CHECK(flowd_screen_welcome(rec->host)->spawned);
}

static void expect_refused(const uint8_t *bytes, size_t size, int code, const char *words) {
    record rec;
    int peer;
    host_on_pair(&peer, &rec);
    welcome_on(peer, &rec);
    CHECK(write(peer, bytes, size) == (ssize_t)size);
    run_until(&rec, ended, 2000);
    const flowd_end *end = flowd_screen_end(rec.host);
    CHECK_EQ_INT(end->reason, FLOWD_END_ERROR);
    CHECK_EQ_INT(end->error.code, code);
    if (!strstr(end->error.message, words)) {
        fprintf(stderr, "  message: %s\n", end->error.message);
        CHECK(strstr(end->error.message, words));
    }
    uint32_t bodies[4];
    flowd_error sent = {0};
    CHECK_EQ_INT(read_bodies(peer, bodies, 4, &sent), 1); /* an Error, then the end of the stream */
    CHECK_EQ_INT(bodies[0], FW_ERROR);
    CHECK_EQ_INT(sent.code, code);
    CHECK(sent.fatal);
    close(peer);
    flowd_screen_free(rec.host);
}

static void test_bad_frames_from_the_daemon_end_the_host_with_an_error(void) {
    const uint8_t empty[] = {0, 0, 0, 0};
    expect_refused(empty, sizeof empty, FLOWD_ERROR_MALFORMED_FRAME, "length 0");
    const uint8_t large[] = {0x01, 0x10, 0, 0, 8}; /* 4097 bytes: over the Welcome's 4096 */
    expect_refused(large, sizeof large, FLOWD_ERROR_FRAME_TOO_LARGE, "4097");
    const uint8_t garbage[] = {3, 0, 0, 0, 0xff, 0xff, 0xff};
    expect_refused(garbage, sizeof garbage, FLOWD_ERROR_MALFORMED_FRAME, "does not decode");
    const uint8_t no_body[] = {2, 0, 0, 0, 0x08, 0x07}; /* seq 7, nothing else */
    expect_refused(no_body, sizeof no_body, FLOWD_ERROR_MALFORMED_FRAME, "without a body");
    const uint8_t unknown_body[] = {3, 0, 0, 0, 0xf2, 0x3e, 0}; /* only field 1006, unknown: no body */
    expect_refused(unknown_body, sizeof unknown_body, FLOWD_ERROR_MALFORMED_FRAME, "without a body");
    const uint8_t hello[] = {2, 0, 0, 0, 0x52, 0x00}; /* a Hello from "flowd" */
    expect_refused(hello, sizeof hello, FLOWD_ERROR_UNEXPECTED_MESSAGE, "never sends a screen host");
    const uint8_t bad_place[] = {5, 0, 0, 0, 0xa2, 0x01, 0x02, 0x0a, 0x00}; /* Place.screen_id length-delimited */
    expect_refused(bad_place, sizeof bad_place, FLOWD_ERROR_MALFORMED_FRAME, "wire type");
}

static void test_a_spawned_host_ends_when_its_screen_is_dismissed(void) {
    record rec;
    int peer;
    host_on_pair(&peer, &rec);
    welcome_on(peer, &rec);
    fw_buffer place = {0}, dismiss = {0}, shutdown = {0};
    fw_put_varint_field(&place, 1, 7);
    fw_put_string_field(&place, 2, "item");
    fw_put_varint_field(&place, 5, 1);
    write_frame(peer, FW_PLACE, &place);
    fw_put_varint_field(&dismiss, 1, 7);
    fw_put_varint_field(&dismiss, 2, 2);
    fw_put_varint_field(&dismiss, 4, FLOWD_DISMISS_FLOW_FINISHED);
    write_frame(peer, FW_DISMISS, &dismiss);
    fw_put_varint_field(&shutdown, 1, FLOWD_SHUTDOWN_SCREEN_DISMISSED);
    write_frame(peer, FW_SHUTDOWN, &shutdown);
    run_until(&rec, ended, 2000);
    CHECK_EQ_INT(flowd_screen_end(rec.host)->reason, FLOWD_END_SCREEN_DISMISSED);
    CHECK_EQ_INT(rec.line_count, 2);
    CHECK_STR(rec.lines[1], "-  FLOW_FINISHED");
    uint32_t bodies[4];
    CHECK_EQ_INT(read_bodies(peer, bodies, 4, NULL), 2); /* the two acks */
    CHECK(bodies[0] == FW_ACK && bodies[1] == FW_ACK);
    fw_buffer_free(&place);
    fw_buffer_free(&dismiss);
    fw_buffer_free(&shutdown);
    close(peer);
    flowd_screen_free(rec.host);
}

/* ---- Spawned by a real flowd --------------------------------------------------------------------- */

static const char *self_directory(void) {
    static char directory[512];
    ssize_t size = readlink("/proc/self/exe", directory, sizeof directory - 1);
    if (size <= 0) return ".";
    directory[size] = 0;
    *strrchr(directory, '/') = 0;
    return directory;
}

static void test_a_spawned_process_serves_its_one_screen_and_ends_with_it(void) {
    char binary[600];
    snprintf(binary, sizeof binary, "%s/spawned-item", self_directory());
    const char *const arguments[] = {"--spawn-screens", binary, NULL};
    daemon_process *daemon = start("deep-stack", arguments);
    CHECK_EQ_INT(daemon_wait(daemon, 20000), 0);
    char *log = daemon_log(daemon);
    const char *lines[] = {"spawned: placed Item 1 animated=0\n", "spawned: placed Item 2 animated=1\n",
                           "spawned: dismissed Item 1 FLOW_FINISHED\n", "spawned: dismissed Item 2 FLOW_FINISHED\n"};
    for (int i = 0; i < 4; i++) {
        if (!strstr(log, lines[i])) fprintf(stderr, "%s", log);
        CHECK(strstr(log, lines[i]));
    }
    int ended_count = 0;
    for (const char *at = log; (at = strstr(at, "spawned: ended SCREEN_DISMISSED")); at++) ended_count++;
    CHECK_EQ_INT(ended_count, 2);
    free(log);
}

/* ---- Reconnecting ---------------------------------------------------------------------------------- */

static daemon_process *through_proxy(record *rec, const char *app, flowd_screen_options *options) {
    daemon_process *daemon = start(app, NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/proxy.sock", daemon->directory);
    current_proxy = proxy_start(daemon->socket_path, path);
    record_connect(rec, path, ITEM, options);
    barrier(rec, 5000);
    return daemon;
}

static void test_resumes_after_a_cut(void) {
    record rec;
    daemon_process *daemon = through_proxy(&rec, "deep-stack", NULL);
    seen_screen *first = record_screen(&rec, "Item 1");
    uint64_t id = first->id;
    proxy_cut(current_proxy);
    barrier(&rec, 10000); /* across the reconnection */
    CHECK_EQ_INT(rec.connection_events[0], FLOWD_CONNECTION_DROPPED);
    CHECK(has_event(&rec, FLOWD_CONNECTION_RECONNECTED));
    CHECK(flowd_screen_welcome(rec.host)->resumed);
    CHECK_EQ_INT(first->dismiss_reason, FLOWD_DISMISS_RESUMED);
    seen_screen *again = record_screen(&rec, "Item 1");
    CHECK(again != first);
    CHECK_EQ_INT(again->id, id);
    CHECK(!again->animated);
    flowd_screen_send_json(rec.host, again->id, PRESS(0), NULL);
    barrier(&rec, 5000);
    record_screen(&rec, "Item 2");
    CHECK(daemon_wait_for_log(daemon, "screen host resumed", 5000));
    CHECK(proxy_connections(current_proxy) >= 2);
    flowd_screen_free(rec.host);
}

static void push_through_a_cut(record *rec, int up, unsigned body_field) {
    through_proxy(rec, "deep-stack", NULL);
    proxy_lose_next(current_proxy, up, body_field);
    flowd_screen_send_json(rec->host, record_screen(rec, "Item 1")->id, PRESS(0), NULL);
    barrier(rec, 10000);
    CHECK_EQ_INT(proxy_lost(current_proxy), 1);
    CHECK_EQ_INT(rec->resent, 1); /* no Pong confirmed it: sent again with its key */
}

static void test_an_output_lost_in_a_cut_is_sent_again(void) {
    record rec;
    push_through_a_cut(&rec, 1, FW_OUTPUT);
    record_screen(&rec, "Item 2"); /* applied once it was sent again */
    flowd_screen_free(rec.host);
}

static void test_an_output_applied_before_the_cut_is_not_applied_twice(void) {
    record rec;
    push_through_a_cut(&rec, 0, FW_PONG);
    barrier(&rec, 5000);
    record_screen(&rec, "Item 2");
    CHECK_EQ_INT(flowd_screen_count(rec.host), 2);
    CHECK(!has_line(&rec, "+ item Item 3")); /* flowd had applied it and dropped the repeat */
    flowd_screen_free(rec.host);
}

static void test_a_saved_state_lost_in_a_cut_is_sent_again_and_the_screen_has_the_newest(void) {
    record rec;
    daemon_process *daemon = through_proxy(&rec, "deep-stack", NULL);
    seen_screen *first = record_screen(&rec, "Item 1");
    CHECK_EQ_INT(flowd_screen_save_state(rec.host, first->id, "an older line", 13, NULL), 0);
    barrier(&rec, 5000);
    proxy_lose_next(current_proxy, 1, FW_SAVE_STATE);
    CHECK_EQ_INT(flowd_screen_save_state(rec.host, first->id, "the newest line", 15, NULL), 0); /* lost */
    barrier(&rec, 15000);
    CHECK_EQ_INT(proxy_lost(current_proxy), 1);
    seen_screen *again = record_screen(&rec, "Item 1");
    CHECK(again != first);
    CHECK_STR(again->saved, "the newest line"); /* the host's own is newer than the resume's Place */
    /* flowd has it too: the next host gets it, once flowd took this one's goodbye. */
    flowd_screen_stop(rec.host);
    flowd_screen_free(rec.host);
    CHECK(daemon_wait_for_log(daemon, "screen waits for the next host of its kind", 5000));
    record other;
    record_connect(&other, daemon->socket_path, ITEM, NULL);
    barrier(&other, 5000);
    CHECK_STR(record_screen(&other, "Item 1")->saved, "the newest line");
    flowd_screen_free(other.host);
}

static void test_a_refused_token_starts_fresh(void) {
    daemon_process *daemon = start("deep-stack", NULL);
    record rec;
    record_connect(&rec, daemon->socket_path, ITEM, NULL);
    barrier(&rec, 5000);
    seen_screen *first = record_screen(&rec, "Item 1");
    daemon_kill(daemon); /* the next flowd on the socket did not issue the token */
    unlink(daemon->socket_path);
    static daemon_process successor;
    daemon_start(&successor, "deep-stack", daemon->directory, NULL);
    daemons[1] = &successor;
    barrier(&rec, 15000);
    CHECK_EQ_INT(rec.connection_events[0], FLOWD_CONNECTION_DROPPED);
    CHECK(has_event(&rec, FLOWD_CONNECTION_RESUME_REFUSED));
    CHECK_EQ_INT(rec.connection_events[rec.connection_event_count - 1], FLOWD_CONNECTION_RECONNECTED);
    CHECK(!flowd_screen_welcome(rec.host)->resumed);
    CHECK_EQ_INT(first->dismiss_reason, FLOWD_DISMISS_CONNECTION_LOST);
    record_screen(&rec, "Item 1"); /* placed by the new flowd */
    flowd_screen_free(rec.host);
}

static void test_saving_again_inside_placed_keeps_the_places_bytes_valid(void) {
    record rec;
    through_proxy(&rec, "deep-stack", NULL);
    seen_screen *first = record_screen(&rec, "Item 1");
    CHECK_EQ_INT(flowd_screen_save_state(rec.host, first->id, "typed before the cut", 20, NULL), 0);
    barrier(&rec, 5000);
    rec.save_in_placed = true; /* the resume's Place hands over our copy; the callback replaces it */
    proxy_cut(current_proxy);
    barrier(&rec, 10000);
    CHECK_STR(record_screen(&rec, "Item 1")->saved, "typed before the cut"); /* read after the save: ASan/valgrind watch */
    flowd_screen_free(rec.host);
}

static void test_a_host_stopped_while_a_refused_resume_forgets_its_screens_stays_stopped(void) {
    daemon_process *daemon = start("deep-stack", NULL);
    record rec;
    record_connect(&rec, daemon->socket_path, ITEM, NULL);
    barrier(&rec, 5000);
    daemon_kill(daemon); /* the successor refuses the token; forgetting the screen, the host stops */
    unlink(daemon->socket_path);
    static daemon_process successor;
    daemon_start(&successor, "deep-stack", daemon->directory, NULL);
    daemons[1] = &successor;
    rec.stop_on_dismiss = true;
    run_until(&rec, ended, 10000);
    CHECK_EQ_INT(flowd_screen_end(rec.host)->reason, FLOWD_END_STOPPED);
    CHECK_EQ_INT(flowd_screen_dispatch(rec.host), 1);
    CHECK_EQ_INT(flowd_screen_fd(rec.host), -1);
    CHECK(!has_event(&rec, FLOWD_CONNECTION_RECONNECTED));
    flowd_screen_free(rec.host);
}

static void test_an_output_over_the_frame_size_is_refused_before_it_is_sent(void) {
    daemon_process *daemon = start("deep-stack", NULL);
    flowd_screen_options options;
    flowd_screen_options_init(&options);
    options.max_frame_size = 4096;
    record rec;
    record_connect(&rec, daemon->socket_path, ITEM, &options);
    barrier(&rec, 5000);
    CHECK_EQ_INT(flowd_screen_welcome(rec.host)->max_frame_size, 4096);
    seen_screen *first = record_screen(&rec, "Item 1");
    static char big[6000];
    memset(big, 'a', sizeof big - 1);
    flowd_payload payload = {.content_type = "application/json", .data = (const uint8_t *)big, .size = sizeof big - 1};
    flowd_error error;
    CHECK_EQ_INT(flowd_screen_send_output(rec.host, first->id, &payload, &error), -1);
    CHECK_EQ_INT(error.code, FLOWD_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "4096"));
    CHECK_EQ_INT(flowd_screen_save_state(rec.host, first->id, big, 5000, &error), -1);
    CHECK_EQ_INT(error.code, FLOWD_ERROR_INVALID_ARGUMENT);
    barrier(&rec, 5000); /* the connection carries on */
    CHECK_EQ_INT(rec.error_count, 0);
    flowd_screen_send_json(rec.host, first->id, PRESS(0), NULL);
    barrier(&rec, 5000);
    record_screen(&rec, "Item 2");
    flowd_screen_free(rec.host);
}

static void test_a_host_whose_write_fails_still_reads_the_fatal_error_before_it(void) {
    record rec;
    int peer;
    host_on_pair(&peer, &rec);
    welcome_on(peer, &rec);
    fw_buffer place = {0}, error = {0};
    fw_put_varint_field(&place, 1, 7);
    fw_put_string_field(&place, 2, "item");
    fw_put_varint_field(&place, 5, 1);
    write_frame(peer, FW_PLACE, &place);
    for (int i = 0; i < 20 && !flowd_screen_count(rec.host); i++) {
        usleep(5000);
        flowd_screen_dispatch(rec.host);
    }
    CHECK_EQ_INT(flowd_screen_count(rec.host), 1);
    fw_put_varint_field(&error, 1, FLOWD_ERROR_FRAME_TIMEOUT);
    fw_put_string_field(&error, 2, "a frame began and stopped");
    fw_put_varint_field(&error, 3, 1);
    write_frame(peer, FW_ERROR, &error);
    close(peer); /* flowd closed: the next write fails */
    flowd_screen_send_json(rec.host, 7, PRESS(0), NULL);
    run_until(&rec, ended, 2000);
    const flowd_end *end = flowd_screen_end(rec.host);
    CHECK_EQ_INT(end->reason, FLOWD_END_ERROR);
    CHECK_EQ_INT(end->error.code, FLOWD_ERROR_FRAME_TIMEOUT);
    fw_buffer_free(&place);
    fw_buffer_free(&error);
    flowd_screen_free(rec.host);
}

static void test_a_host_without_reconnect_ends_at_a_drop(void) {
    flowd_screen_options options;
    flowd_screen_options_init(&options);
    options.reconnect = false;
    record rec;
    through_proxy(&rec, "deep-stack", &options);
    uint64_t id = rec.screens[0].id;
    proxy_cut(current_proxy);
    CHECK_EQ_INT(flowd_screen_run(rec.host), FLOWD_END_CONNECTION_CLOSED);
    CHECK_EQ_INT(rec.connection_event_count, 0);
    CHECK_EQ_INT(rec.screens[0].dismiss_reason, FLOWD_DISMISS_CONNECTION_LOST);
    flowd_error error;
    CHECK_EQ_INT(flowd_screen_send_json(rec.host, id, PRESS(0), &error), -1);
    CHECK_EQ_INT(error.code, FLOWD_ERROR_CLOSED);
    flowd_screen_free(rec.host);
}

static void test_a_reconnecting_host_gives_up_after_its_limit(void) {
    flowd_screen_options options;
    flowd_screen_options_init(&options);
    options.give_up_after_ms = 300;
    record rec;
    through_proxy(&rec, "deep-stack", &options);
    proxy_close(current_proxy); /* nobody listens on the proxy's path any more */
    current_proxy = NULL;
    CHECK_EQ_INT(flowd_screen_run(rec.host), FLOWD_END_CONNECTION_CLOSED);
    CHECK_EQ_INT(rec.connection_events[0], FLOWD_CONNECTION_DROPPED);
    CHECK_EQ_INT(rec.connection_events[rec.connection_event_count - 1], FLOWD_CONNECTION_GAVE_UP);
    CHECK_EQ_INT(rec.screens[0].dismiss_reason, FLOWD_DISMISS_CONNECTION_LOST);
    flowd_screen_free(rec.host);
}

/* ---- Displays: against a real flowd ------------------------------------------------------------- */

static bool display_has_ended(display_record *rec) {
    return display_ended(rec);
}

/* The brief's walk: the root's scene, the host's token in it, a push, a cancelled back gesture that
 * changes nothing, a back from the display that pops, a refused back. */
static void test_display_follows_push_and_pop_with_the_hosts_tokens(void) {
    daemon_process *daemon = start("deep-stack", NULL);
    record rec;
    record_connect(&rec, daemon->socket_path, ITEM, NULL);
    barrier(&rec, 5000);
    seen_screen *first = record_screen(&rec, "Item 1");
    CHECK(is_display_token(first->token));

    display_record shown;
    display_connect(&shown, daemon->socket_path);
    display_barrier(&shown, 5000);
    CHECK_STR(shown.app, "deep-stack");
    CHECK_EQ_INT(shown.scene_count, 1); /* the scene after Welcome */
    const seen_scene *scene = display_last(&shown);
    CHECK(scene->seq >= 1);
    CHECK_STR(scene->app, "deep-stack");
    CHECK_EQ_INT(scene->transition, FLOWD_TRANSITION_NONE);
    CHECK_EQ_INT(scene->visible_screen, first->id); /* the root screen */
    CHECK_EQ_INT(scene->nodes[0].kind, FLOWD_NODE_WINDOW);
    CHECK_EQ_INT(scene->nodes[1].kind, FLOWD_NODE_STACK);
    const seen_node *root = scene_node(scene, first->id);
    CHECK_STR(root->token, first->token); /* the host's Place.display_token is the screen's in the scene */
    CHECK_STR(root->screen_kind, "item");
    CHECK(root->visible);
    CHECK(root->flow_id > 0);
    CHECK_STR(root->flow_type, "DeepStackFlow");

    /* The host's output pushes Item 2: a new scene, a push to it. */
    uint64_t seq = scene->seq;
    CHECK_EQ_INT(flowd_screen_send_json(rec.host, first->id, PRESS(0), NULL), 0);
    barrier(&rec, 5000);
    seen_screen *second = record_screen(&rec, "Item 2");
    display_barrier(&shown, 5000);
    CHECK_EQ_INT(shown.scene_count, 2);
    scene = display_last(&shown);
    CHECK(scene->seq > seq);
    CHECK_EQ_INT(scene->transition, FLOWD_TRANSITION_PUSH);
    CHECK_EQ_INT(scene->from_screen, first->id);
    CHECK_EQ_INT(scene->to_screen, second->id);
    CHECK_EQ_INT(scene->visible_screen, second->id);
    CHECK_EQ_INT(scene->animated, second->animated);
    CHECK_STR(scene_node(scene, second->id)->token, second->token);
    CHECK(strcmp(second->token, first->token) != 0);
    CHECK(scene_node(scene, second->id)->visible);
    CHECK(!scene_node(scene, first->id)->visible);

    /* A back gesture let go early: no scene, nothing for the host. */
    int lines = rec.line_count;
    CHECK_EQ_INT(flowd_display_back(shown.display, second->id, FLOWD_PHASE_BEGIN, NULL), 0);
    CHECK_EQ_INT(flowd_display_back(shown.display, second->id, FLOWD_PHASE_CANCEL, NULL), 0);
    display_barrier(&shown, 5000);
    CHECK_EQ_INT(shown.scene_count, 2);
    CHECK_EQ_INT(shown.error_count, 0);
    barrier(&rec, 5000);
    CHECK_EQ_INT(rec.line_count, lines);
    CHECK(!second->dismissed);

    /* Back from the display pops the host's screen: a pop, and the host is told. */
    CHECK_EQ_INT(flowd_display_back(shown.display, second->id, FLOWD_PHASE_IMMEDIATE, NULL), 0);
    display_barrier(&shown, 5000);
    CHECK_EQ_INT(shown.scene_count, 3);
    scene = display_last(&shown);
    CHECK_EQ_INT(scene->transition, FLOWD_TRANSITION_POP);
    CHECK_EQ_INT(scene->from_screen, second->id);
    CHECK_EQ_INT(scene->to_screen, first->id);
    CHECK_EQ_INT(scene->visible_screen, first->id);
    CHECK(scene_node(scene, first->id)->visible);
    for (int i = 0; i < scene->node_count; i++) CHECK(scene->nodes[i].id != second->id);
    barrier(&rec, 5000);
    CHECK(second->dismissed);
    CHECK_EQ_INT(second->dismiss_reason, FLOWD_DISMISS_USER_NAVIGATION);
    CHECK_STR(rec.lines[rec.line_count - 1], "> Item 1 UNCOVERED");

    /* Back on the stack's root is refused, not fatal: the display carries on. */
    CHECK_EQ_INT(flowd_display_back(shown.display, first->id, FLOWD_PHASE_IMMEDIATE, NULL), 0);
    display_barrier(&shown, 5000);
    CHECK_EQ_INT(shown.error_count, 1);
    CHECK_EQ_INT(shown.errors[0].code, FLOWD_ERROR_INVALID_NAVIGATION);
    CHECK(!shown.errors[0].fatal);
    CHECK_EQ_INT(shown.scene_count, 3);

    flowd_display_stop(shown.display);
    CHECK_EQ_INT(flowd_display_end(shown.display)->reason, FLOWD_END_STOPPED);
    CHECK_EQ_INT(flowd_display_dispatch(shown.display), 1);
    CHECK_EQ_INT(rec.error_count, 0);
    flowd_display_free(shown.display);
    flowd_screen_free(rec.host);
}

/* The till opens the customer's display as a window beside the main one: the host reads the window
 * (its id and display) first on the customer's screens' paths, the display gets it in the scene with
 * its own visible screen, and the Pay prompt is a PRESENT in that window only. */
static const char *const TILL[] = {"till", "customer", "customer-pay", NULL};

static void test_display_and_host_see_a_window_a_flow_opened(void) {
    daemon_process *daemon = start("till", NULL);
    record rec;
    record_connect(&rec, daemon->socket_path, TILL, NULL);
    barrier(&rec, 5000);
    seen_screen *till = record_screen(&rec, "Till");
    seen_screen *welcome = record_screen(&rec, "Welcome");
    CHECK_EQ_INT(till->window_id, 1);
    CHECK_STR(till->window_display, "");
    CHECK(welcome->window_id != 1);
    CHECK_STR(welcome->window_display, "customer");
    CHECK(till->visible && welcome->visible); /* one front per window */

    display_record shown;
    display_connect(&shown, daemon->socket_path);
    display_barrier(&shown, 5000);
    const seen_scene *scene = display_last(&shown);
    CHECK_EQ_INT(scene->visible_screen, till->id);
    CHECK_EQ_INT(scene->window_count, 1);
    CHECK_EQ_INT(scene->windows[0].id, welcome->window_id);
    CHECK_STR(scene->windows[0].display, "customer");
    CHECK_EQ_INT(scene->windows[0].visible_screen, welcome->id);
    CHECK_STR(scene_node(scene, welcome->id)->token, welcome->token);

    flowd_screen_send_json(rec.host, till->id, PRESS(0), NULL); /* Scan apple */
    flowd_screen_send_json(rec.host, till->id, PRESS(3), NULL); /* Take payment */
    barrier(&rec, 5000);
    seen_screen *pay = record_screen(&rec, "Pay 1.00");
    CHECK_EQ_INT(pay->window_id, welcome->window_id);
    display_barrier(&shown, 5000);
    scene = display_last(&shown);
    CHECK_EQ_INT(scene->visible_screen, till->id);
    CHECK_EQ_INT(scene->transition, FLOWD_TRANSITION_NONE);
    CHECK_EQ_INT(scene->windows[0].visible_screen, pay->id);
    CHECK_EQ_INT(scene->windows[0].transition, FLOWD_TRANSITION_PRESENT);

    flowd_screen_send_json(rec.host, pay->id, PRESS(0), NULL); /* the customer pays */
    barrier(&rec, 5000);
    CHECK(pay->dismissed);
    display_barrier(&shown, 5000);
    CHECK_EQ_INT(display_last(&shown)->windows[0].transition, FLOWD_TRANSITION_DISMISS);

    /* The display closes the customer's window: begin and cancel change nothing, immediate closes it
     * (the customer's flow ends, dismissed by the user); the main window cannot be closed. */
    CHECK_EQ_INT(flowd_display_close_window(shown.display, welcome->id, FLOWD_PHASE_BEGIN, NULL), 0);
    CHECK_EQ_INT(flowd_display_close_window(shown.display, welcome->id, FLOWD_PHASE_CANCEL, NULL), 0);
    display_barrier(&shown, 5000);
    CHECK_EQ_INT(display_last(&shown)->window_count, 1);
    CHECK_EQ_INT(flowd_display_close_window(shown.display, till->id, FLOWD_PHASE_IMMEDIATE, NULL), 0);
    display_barrier(&shown, 5000);
    CHECK(shown.error_count == 1 && shown.errors[0].code == FLOWD_ERROR_INVALID_NAVIGATION && !shown.errors[0].fatal);
    CHECK_EQ_INT(flowd_display_close_window(shown.display, welcome->id, FLOWD_PHASE_IMMEDIATE, NULL), 0);
    display_barrier(&shown, 5000);
    CHECK_EQ_INT(display_last(&shown)->window_count, 0);
    barrier(&rec, 5000);
    CHECK(welcome->dismissed);
    flowd_display_free(shown.display);
    flowd_screen_free(rec.host);
}

static void test_display_closes_a_modal_and_selects_a_tab(void) {
    daemon_process *daemon = start("modal", NULL);
    display_record shown;
    display_connect(&shown, daemon->socket_path); /* before any host */
    record rec;
    record_connect(&rec, daemon->socket_path, ITEM, NULL);
    barrier(&rec, 5000);
    seen_screen *home = record_screen(&rec, "Home");
    display_barrier(&shown, 5000);
    CHECK_EQ_INT(display_last(&shown)->visible_screen, home->id);
    CHECK_STR(scene_node(display_last(&shown), home->id)->token, home->token);

    flowd_screen_send_json(rec.host, home->id, PRESS(0), NULL); /* Present */
    barrier(&rec, 5000);
    seen_screen *detail = record_screen(&rec, "Detail 1");
    display_barrier(&shown, 5000);
    const seen_scene *scene = display_last(&shown);
    CHECK_EQ_INT(scene->transition, FLOWD_TRANSITION_PRESENT);
    CHECK_EQ_INT(scene->visible_screen, detail->id);
    CHECK(!scene_node(scene, home->id)->visible);
    bool presented = false; /* Detail is under a node presented on the tree */
    for (int i = 0; i < scene->node_count; i++) presented |= scene->nodes[i].presented;
    CHECK(presented);

    int scenes = shown.scene_count;
    CHECK_EQ_INT(flowd_display_close_modal(shown.display, detail->id, FLOWD_PHASE_BEGIN, NULL), 0);
    CHECK_EQ_INT(flowd_display_close_modal(shown.display, detail->id, FLOWD_PHASE_CANCEL, NULL), 0);
    display_barrier(&shown, 5000);
    CHECK_EQ_INT(shown.scene_count, scenes);
    CHECK_EQ_INT(flowd_display_close_modal(shown.display, detail->id, FLOWD_PHASE_IMMEDIATE, NULL), 0);
    display_barrier(&shown, 5000);
    scene = display_last(&shown);
    CHECK_EQ_INT(scene->transition, FLOWD_TRANSITION_DISMISS);
    CHECK_EQ_INT(scene->from_screen, detail->id);
    CHECK_EQ_INT(scene->to_screen, home->id);
    barrier(&rec, 5000);
    CHECK_EQ_INT(detail->dismiss_reason, FLOWD_DISMISS_USER_NAVIGATION);
    CHECK_EQ_INT(shown.error_count, 0);
    flowd_display_free(shown.display);
    flowd_screen_free(rec.host);
    daemon_stop(daemon);
    daemons[0] = NULL;

    daemon = start("mirror", NULL);
    const char *const kinds[] = {"item", "tutorial", NULL};
    record_connect(&rec, daemon->socket_path, kinds, NULL);
    barrier(&rec, 5000);
    seen_screen *item = &rec.screens[0], *mirror = &rec.screens[1];
    display_connect(&shown, daemon->socket_path);
    display_barrier(&shown, 5000);
    scene = display_last(&shown);
    CHECK_EQ_INT(scene->visible_screen, item->id);
    CHECK_EQ_INT(scene->nodes[1].kind, FLOWD_NODE_TAB_BAR);
    CHECK_EQ_INT(scene->nodes[1].child_count, 2);
    CHECK_EQ_INT(scene->nodes[1].selected_tab, 0);
    CHECK_STR(scene_node(scene, mirror->id)->token, mirror->token); /* a screen not seen has its token too */
    CHECK_EQ_INT(flowd_display_select_tab(shown.display, item->id, 1, NULL), 0);
    display_barrier(&shown, 5000);
    scene = display_last(&shown);
    CHECK_EQ_INT(scene->transition, FLOWD_TRANSITION_TAB);
    CHECK_EQ_INT(scene->visible_screen, mirror->id);
    CHECK_EQ_INT(scene->nodes[1].selected_tab, 1);
    barrier(&rec, 5000);
    CHECK(mirror->visible && !item->visible);
    CHECK_EQ_INT(flowd_display_select_tab(shown.display, item->id, 7, NULL), 0); /* no tab 7 */
    display_barrier(&shown, 5000);
    CHECK_EQ_INT(shown.error_count, 1);
    CHECK_EQ_INT(shown.errors[0].code, FLOWD_ERROR_INVALID_NAVIGATION);
    flowd_display_free(shown.display);
    flowd_screen_free(rec.host);
}

/* No reconnecting inside: the display ends, and its caller connects a new one to the next flowd. */
static void test_display_ends_when_flowd_goes_and_a_new_one_starts_from_the_next_scene(void) {
    daemon_process *daemon = start("deep-stack", NULL);
    display_record shown;
    display_connect(&shown, daemon->socket_path);
    display_barrier(&shown, 5000);
    const seen_scene *scene = display_last(&shown);
    CHECK_EQ_INT(scene->transition, FLOWD_TRANSITION_NONE);
    uint64_t waiting = scene->visible_screen; /* no host yet: the screen has no token */
    CHECK(waiting > 0);
    CHECK_STR(scene_node(scene, waiting)->token, "");

    daemon_kill(daemon);
    CHECK(display_run_until(&shown, display_has_ended, 5000));
    const flowd_end *end = flowd_display_end(shown.display);
    CHECK_EQ_INT(end->reason, FLOWD_END_CONNECTION_CLOSED);
    CHECK(end->error.code == FLOWD_ERROR_CLOSED || end->error.code == FLOWD_ERROR_IO); /* the end of the stream, or a reset */
    CHECK(end->error.message[0]);
    CHECK(!end->error.fatal);
    CHECK_EQ_INT(flowd_display_fd(shown.display), -1);
    CHECK_EQ_INT(flowd_display_events(shown.display), 0);
    flowd_error error;
    CHECK_EQ_INT(flowd_display_ping(shown.display, NULL, &error), -1);
    CHECK_EQ_INT(error.code, FLOWD_ERROR_CLOSED);
    CHECK_EQ_INT(flowd_display_dispatch(shown.display), 1);
    flowd_display_free(shown.display);

    unlink(daemon->socket_path);
    static daemon_process successor;
    daemon_start(&successor, "deep-stack", daemon->directory, NULL);
    daemons[1] = &successor;
    display_connect(&shown, successor.socket_path);
    display_barrier(&shown, 5000);
    CHECK_EQ_INT(shown.scene_count, 1);
    CHECK_EQ_INT(display_last(&shown)->transition, FLOWD_TRANSITION_NONE);
    record rec;
    record_connect(&rec, successor.socket_path, ITEM, NULL);
    barrier(&rec, 5000);
    display_barrier(&shown, 5000);
    scene = display_last(&shown);
    seen_screen *first = record_screen(&rec, "Item 1");
    CHECK_STR(scene_node(scene, first->id)->token, first->token); /* the token came with the host's Place */
    CHECK_EQ_INT(scene->transition, FLOWD_TRANSITION_NONE);      /* the same screen stays visible */
    flowd_display_free(shown.display);
    flowd_screen_free(rec.host);
}

static void test_display_misuse_is_refused_before_sending(void) {
    flowd_display_options options;
    flowd_display_options_init(&options);
    flowd_error error;
    options.socket_path = "/tmp/no-such-dir-for-flowd/flowd.sock";
    CHECK(!flowd_display_connect(&options, &error));
    CHECK_EQ_INT(error.code, FLOWD_ERROR_CONNECT);
    CHECK(strstr(error.message, "/tmp/no-such-dir-for-flowd/flowd.sock"));
    options.max_frame_size = 100;
    CHECK(!flowd_display_connect(&options, &error));
    CHECK_EQ_INT(error.code, FLOWD_ERROR_INVALID_ARGUMENT);
    CHECK(!flowd_display_connect(NULL, &error));
    CHECK_EQ_INT(error.code, FLOWD_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_INT(flowd_display_back(NULL, 1, FLOWD_PHASE_IMMEDIATE, &error), -1);
    CHECK_EQ_INT(error.code, FLOWD_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_INT(flowd_display_dispatch(NULL), 1);
    CHECK_EQ_INT(flowd_display_end(NULL)->reason, FLOWD_END_NONE);

    daemon_process *daemon = start("deep-stack", NULL);
    display_record shown;
    display_connect(&shown, daemon->socket_path);
    CHECK_EQ_INT(flowd_display_ping(shown.display, NULL, &error), -1); /* no Welcome yet */
    CHECK_EQ_INT(error.code, FLOWD_ERROR_CLOSED);
    CHECK(strstr(error.message, "welcomed"));
    CHECK(flowd_display_timeout_ms(shown.display) >= 0); /* the handshake's deadline */
    /* Displays: checked here, kept until the Welcome and sent with it. */
    flowd_provided_display many[17];
    for (int i = 0; i < 17; i++) many[i] = (flowd_provided_display){.id = i % 2 ? "odd" : "even"};
    CHECK_EQ_INT(flowd_display_provide(shown.display, many, 17, &error), -1);
    CHECK(error.code == FLOWD_ERROR_INVALID_ARGUMENT && strstr(error.message, "at most 16"));
    CHECK_EQ_INT(flowd_display_provide(shown.display, many, 2, &error), 0);
    CHECK_EQ_INT(flowd_display_provide(shown.display, many, 3, &error), -1);
    CHECK(strstr(error.message, "'even' is listed twice"));
    flowd_provided_display empty = {.id = ""}, unnamed = {.id = NULL};
    CHECK_EQ_INT(flowd_display_provide(shown.display, &empty, 1, &error), -1);
    CHECK_EQ_INT(flowd_display_provide(shown.display, &unnamed, 1, &error), -1);
    CHECK(strstr(error.message, "1 to 64 bytes"));
    CHECK_EQ_INT(flowd_display_provide(shown.display, NULL, 1, &error), -1);
    display_barrier(&shown, 5000);
    CHECK_EQ_INT(flowd_display_provide(shown.display, many, 1, &error), 0); /* after the Welcome: at once */
    CHECK_EQ_INT(flowd_display_provide(shown.display, NULL, 0, &error), 0); /* none: withdrawn */
    CHECK_EQ_INT(flowd_display_timeout_ms(shown.display), -1);
    CHECK_EQ_INT(flowd_display_welcome(shown.display)->max_frame_size, 1 << 20);
    uint64_t root = display_last(&shown)->visible_screen;
    CHECK_EQ_INT(flowd_display_back(shown.display, root, (flowd_phase)7, &error), -1);
    CHECK_EQ_INT(error.code, FLOWD_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_INT(flowd_display_close_modal(shown.display, 0, FLOWD_PHASE_IMMEDIATE, &error), -1);
    CHECK_EQ_INT(error.code, FLOWD_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_INT(flowd_display_select_tab(shown.display, 0, 1, &error), -1);
    display_barrier(&shown, 5000);
    CHECK_EQ_INT(shown.error_count, 0); /* nothing reached flowd */
    flowd_display_stop(shown.display);
    CHECK_EQ_INT(flowd_display_back(shown.display, root, FLOWD_PHASE_IMMEDIATE, &error), -1);
    CHECK_EQ_INT(error.code, FLOWD_ERROR_CLOSED);
    CHECK(strstr(error.message, "ended"));
    flowd_display_free(shown.display);
    record rec; /* flowd is still up: a display's Shutdown ends only the display */
    record_connect(&rec, daemon->socket_path, ITEM, NULL);
    barrier(&rec, 5000);
    flowd_screen_free(rec.host);
}

/* flowd's refusal at Hello (a fatal Error before Welcome) ends the display with it. */
static void test_display_a_policy_refuses_ends_with_unauthorized(void) {
    char policy[] = "/tmp/fc-policy-XXXXXX";
    int fd = mkstemp(policy);
    CHECK(fd >= 0);
    const char rule[] = "display by nobody\n";
    CHECK(write(fd, rule, sizeof rule - 1) == (ssize_t)sizeof rule - 1);
    close(fd);
    const char *const arguments[] = {"--policy", policy, NULL};
    daemon_process *daemon = start("deep-stack", arguments);
    unlink(policy);
    display_record shown;
    display_connect(&shown, daemon->socket_path);
    CHECK(display_run_until(&shown, display_has_ended, 5000));
    const flowd_end *end = flowd_display_end(shown.display);
    CHECK_EQ_INT(end->reason, FLOWD_END_ERROR);
    CHECK_EQ_INT(end->error.code, FLOWD_ERROR_UNAUTHORIZED);
    CHECK(end->error.fatal);
    CHECK(strstr(end->error.message, "display by nobody"));
    CHECK(!shown.welcomed);
    CHECK_EQ_INT(shown.scene_count, 0);
    flowd_display_free(shown.display);
}

static void test_display_refuses_a_socket_another_user_serves(void) {
    if (getuid() != 0) {
        printf("     (skipped: needs root, the impostor runs as another user)\n");
        return;
    }
    char base[] = "/tmp/fcs-XXXXXX";
    CHECK(mkdtemp(base) && chmod(base, 0755) == 0);
    char directory[64], path[96];
    snprintf(directory, sizeof directory, "%s/imp", base);
    snprintf(path, sizeof path, "%s/flowd.sock", directory);
    int report = -1;
    pid_t impostor = impostor_start(directory, path, &report);
    flowd_display_options options;
    flowd_display_options_init(&options);
    options.socket_path = path;
    flowd_error error = {0};
    CHECK(!flowd_display_connect(&options, &error));
    CHECK_EQ_INT(error.code, FLOWD_ERROR_UNTRUSTED_SERVER);
    CHECK(strstr(error.message, "it runs as uid 65534"));
    char counted[32] = {0};
    CHECK(read(report, counted, sizeof counted - 1) > 0);
    CHECK_STR(counted, "0\n"); /* not even the Hello */
    close(report);
    waitpid(impostor, NULL, 0);
    unlink(path);
    rmdir(directory);
    rmdir(base);
}

/* ---- Displays: the test plays flowd ------------------------------------------------------------ */

/* A DisplayNode with its fields; children and presented are appended by the caller. */
static void put_node(fw_buffer *node, uint64_t id, int kind, const char *screen_kind, bool visible, const char *token) {
    fw_put_varint_field(node, 1, id);
    fw_put_varint_field(node, 2, (uint64_t)kind);
    fw_put_string_field(node, 6, screen_kind);
    fw_put_varint_field(node, 7, visible);
    fw_put_string_field(node, 10, token);
}

/* A chain of `depth` nodes from the window down, each the child (or, every third, the node presented
 * on) the one above: a DisplayScene {seq 1, window}. */
static void deep_scene(fw_buffer *scene, int depth) {
    fw_buffer inner = {0};
    put_node(&inner, (uint64_t)depth, FLOWD_NODE_SCREEN, "item", true, NULL);
    for (int level = depth - 1; level >= 1; level--) {
        fw_buffer outer = {0};
        put_node(&outer, (uint64_t)level, level == 1 ? FLOWD_NODE_WINDOW : FLOWD_NODE_STACK, NULL, false, NULL);
        fw_put_message_field(&outer, level % 3 ? 3 : 4, &inner);
        fw_buffer_free(&inner);
        inner = outer;
    }
    fw_put_varint_field(scene, 1, 1);
    fw_put_message_field(scene, 3, &inner);
    fw_buffer_free(&inner);
}

static void test_display_scene_decoder_bounds_the_depth_and_keeps_the_last_window(void) {
    fw_arena arena = {0};
    flowd_scene scene;
    char why[256];
    fw_buffer deep = {0};
    deep_scene(&deep, FLOWD_SCENE_MAX_DEPTH);
    CHECK_EQ_INT(fw_decode_display_scene((fw_slice){deep.data, deep.size}, &arena, &scene, why, sizeof why), 0);
    int depth = 0;
    for (const flowd_scene_node *node = scene.window; node;
         node = node->child_count ? &node->children[0] : node->presented)
        depth++;
    CHECK_EQ_INT(depth, FLOWD_SCENE_MAX_DEPTH);
    fw_arena_reset(&arena);
    fw_buffer_free(&deep);
    deep_scene(&deep, FLOWD_SCENE_MAX_DEPTH + 1);
    CHECK_EQ_INT(fw_decode_display_scene((fw_slice){deep.data, deep.size}, &arena, &scene, why, sizeof why), -1);
    CHECK(strstr(why, "deeper than 64"));
    fw_arena_reset(&arena);
    fw_buffer_free(&deep);

    /* No window: an empty one. A transition kind from the future: REPLACE. */
    fw_buffer body = {0}, transition = {0}, window = {0}, other = {0};
    fw_put_varint_field(&transition, 1, 9);
    fw_put_varint_field(&transition, 3, 5);
    fw_put_message_field(&body, 4, &transition);
    CHECK_EQ_INT(fw_decode_display_scene((fw_slice){body.data, body.size}, &arena, &scene, why, sizeof why), 0);
    CHECK(scene.window);
    CHECK_EQ_INT(scene.window->kind, FLOWD_NODE_WINDOW);
    CHECK_EQ_INT(scene.window->child_count, 0);
    CHECK(!scene.window->presented);
    CHECK_STR(scene.window->display_token, "");
    CHECK_STR(scene.app, "");
    CHECK_EQ_INT(scene.transition, FLOWD_TRANSITION_REPLACE);
    CHECK_EQ_INT(scene.from_screen, 5);
    fw_arena_reset(&arena);

    /* A window sent twice: the last one. A transition sent twice: merged field by field. */
    fw_buffer_free(&transition);
    put_node(&window, 1, FLOWD_NODE_WINDOW, NULL, false, NULL);
    put_node(&other, 2, FLOWD_NODE_WINDOW, NULL, false, NULL);
    fw_put_message_field(&body, 3, &window);
    fw_put_message_field(&body, 3, &other);
    fw_put_varint_field(&transition, 4, 6);
    fw_put_message_field(&body, 4, &transition);
    CHECK_EQ_INT(fw_decode_display_scene((fw_slice){body.data, body.size}, &arena, &scene, why, sizeof why), 0);
    CHECK_EQ_INT(scene.window->id, 2);
    CHECK_EQ_INT(scene.from_screen, 5);
    CHECK_EQ_INT(scene.to_screen, 6);
    fw_arena_reset(&arena);

    /* A node field of the wrong wire type: malformed. */
    fw_buffer bad = {0}, node = {0};
    fw_put_string_field(&node, 7, "visible is a bool");
    fw_put_message_field(&bad, 3, &node);
    CHECK_EQ_INT(fw_decode_display_scene((fw_slice){bad.data, bad.size}, &arena, &scene, why, sizeof why), -1);
    CHECK(strstr(why, "DisplayNode field 7 has wire type 2"));
    fw_arena_reset(&arena);
    fw_buffer_free(&body);
    fw_buffer_free(&transition);
    fw_buffer_free(&window);
    fw_buffer_free(&other);
    fw_buffer_free(&bad);
    fw_buffer_free(&node);
}

static bool display_welcomed_yet(display_record *rec) {
    return rec->welcomed;
}

/* A display on a socket pair whose other end the test holds: reads its Hello (the display role,
 * its name) and welcomes it. */
static void display_on_pair(int *peer, display_record *rec) {
    int pair[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
    memset(rec, 0, sizeof *rec);
    flowd_display_options options;
    flowd_display_options_init(&options);
    options.name = "paired";
    display_callbacks(&options, rec);
    flowd_error error;
    rec->display = fl_display_on_fd(&options, pair[1], &error);
    CHECK(rec->display);
    *peer = pair[0];
    static uint8_t bytes[4096];
    ssize_t got = read(*peer, bytes, sizeof bytes);
    CHECK(got > 4);
    fw_slice frame;
    size_t used;
    char why[100];
    CHECK_EQ_INT(fw_next_frame(bytes, (size_t)got, 1 << 20, &frame, &used, why, sizeof why), 1);
    fw_envelope envelope;
    CHECK_EQ_INT(fw_decode_envelope(frame, &envelope, why, sizeof why), 0);
    CHECK_EQ_INT(envelope.body_field, FW_HELLO);
    /* Hello {1: 1, 2: 1, 3: ROLE_DISPLAY, 5: "paired", 8: pid}: the role follows the versions. */
    const uint8_t expected[] = {0x08, 1, 0x10, 1, 0x18, 3, 0x2a, 6, 'p', 'a', 'i', 'r', 'e', 'd', 0x40};
    CHECK(envelope.body.size > sizeof expected && !memcmp(envelope.body.data, expected, sizeof expected));
    fw_buffer welcome = {0};
    fw_put_varint_field(&welcome, 1, 1);
    fw_put_varint_field(&welcome, 2, 9);
    fw_put_string_field(&welcome, 3, "fake flowd");
    fw_put_varint_field(&welcome, 4, 4096);
    fw_put_string_field(&welcome, 5, "fake");
    write_frame(*peer, FW_WELCOME, &welcome);
    fw_buffer_free(&welcome);
    CHECK(display_run_until(rec, display_welcomed_yet, 2000));
    CHECK_EQ_INT(flowd_display_welcome(rec->display)->max_frame_size, 4096);
}

static bool a_scene_arrived(display_record *rec) {
    return rec->scene_count > 0;
}

static void test_display_decodes_a_whole_scene_from_a_fake_flowd(void) {
    display_record rec;
    int peer;
    display_on_pair(&peer, &rec);
    /* window 1 > tab bar 2 (tab 1 selected) > [stack 3 > screen 10, screen 11 + presented stack 4 > screen 12] */
    fw_buffer s10 = {0}, s11 = {0}, s12 = {0}, stack3 = {0}, stack4 = {0}, bar = {0}, window = {0}, transition = {0},
              scene = {0};
    put_node(&s10, 10, FLOWD_NODE_SCREEN, "item", false, "0123456789abcdef0123456789abcdef");
    fw_put_varint_field(&s10, 8, 5);
    fw_put_string_field(&s10, 9, "ItemFlow");
    put_node(&s12, 12, FLOWD_NODE_SCREEN, "detail", true, "t12");
    put_node(&stack4, 4, FLOWD_NODE_STACK, NULL, false, NULL);
    fw_put_message_field(&stack4, 3, &s12);
    put_node(&s11, 11, FLOWD_NODE_SCREEN, "item", false, NULL);
    fw_put_message_field(&s11, 4, &stack4);
    put_node(&stack3, 3, FLOWD_NODE_STACK, NULL, false, NULL);
    fw_put_message_field(&stack3, 3, &s10);
    put_node(&bar, 2, FLOWD_NODE_TAB_BAR, NULL, false, NULL);
    fw_put_varint_field(&bar, 5, 1);
    fw_put_message_field(&bar, 3, &stack3);
    fw_put_message_field(&bar, 3, &s11);
    put_node(&window, 1, FLOWD_NODE_WINDOW, NULL, false, NULL);
    fw_put_varint_field(&window, 99, 7); /* a field from the future: skipped */
    fw_put_message_field(&window, 3, &bar);
    fw_put_varint_field(&transition, 1, FLOWD_TRANSITION_PRESENT);
    fw_put_varint_field(&transition, 2, 1);
    fw_put_varint_field(&transition, 3, 11);
    fw_put_varint_field(&transition, 4, 12);
    fw_put_varint_field(&scene, 1, 42);
    fw_put_string_field(&scene, 2, "fake");
    fw_put_message_field(&scene, 3, &window);
    fw_put_message_field(&scene, 4, &transition);
    fw_put_varint_field(&scene, 5, 12);
    write_frame(peer, FW_DISPLAY_SCENE, &scene);
    CHECK(display_run_until(&rec, a_scene_arrived, 2000));
    const seen_scene *seen = display_last(&rec);
    CHECK_EQ_INT(seen->seq, 42);
    CHECK_STR(seen->app, "fake");
    CHECK_EQ_INT(seen->transition, FLOWD_TRANSITION_PRESENT);
    CHECK(seen->animated);
    CHECK_EQ_INT(seen->from_screen, 11);
    CHECK_EQ_INT(seen->to_screen, 12);
    CHECK_EQ_INT(seen->visible_screen, 12);
    CHECK_EQ_INT(seen->node_count, 7);
    const uint64_t order[] = {1, 2, 3, 10, 11, 4, 12};
    const int depths[] = {1, 2, 3, 4, 3, 4, 5};
    for (int i = 0; i < 7; i++) {
        CHECK_EQ_INT(seen->nodes[i].id, order[i]);
        CHECK_EQ_INT(seen->nodes[i].depth, depths[i]);
        CHECK_EQ_INT(seen->nodes[i].presented, i == 5);
    }
    CHECK_EQ_INT(seen->nodes[1].kind, FLOWD_NODE_TAB_BAR);
    CHECK_EQ_INT(seen->nodes[1].child_count, 2);
    CHECK_EQ_INT(seen->nodes[1].selected_tab, 1);
    const seen_node *ten = scene_node(seen, 10);
    CHECK_STR(ten->screen_kind, "item");
    CHECK_STR(ten->token, "0123456789abcdef0123456789abcdef");
    CHECK_EQ_INT(ten->flow_id, 5);
    CHECK_STR(ten->flow_type, "ItemFlow");
    CHECK(!ten->visible);
    CHECK(scene_node(seen, 12)->visible);
    CHECK_STR(scene_node(seen, 11)->token, "");
    CHECK_STR(seen->nodes[0].screen_kind, "");

    /* A non-fatal Error goes to the callback; flowd's Ping is answered; Shutdown ends the display. */
    fw_buffer error = {0}, ping = {0}, shutdown = {0};
    fw_put_varint_field(&error, 1, FLOWD_ERROR_INVALID_NAVIGATION);
    fw_put_string_field(&error, 2, "no");
    write_frame(peer, FW_ERROR, &error);
    fw_put_varint_field(&ping, 1, 77);
    write_frame(peer, FW_PING, &ping);
    fw_put_varint_field(&shutdown, 1, FLOWD_SHUTDOWN_DAEMON_EXITING);
    fw_put_string_field(&shutdown, 2, "bye");
    write_frame(peer, FW_SHUTDOWN, &shutdown);
    CHECK(display_run_until(&rec, display_has_ended, 2000));
    CHECK_EQ_INT(rec.error_count, 1);
    CHECK_EQ_INT(rec.errors[0].code, FLOWD_ERROR_INVALID_NAVIGATION);
    const flowd_end *end = flowd_display_end(rec.display);
    CHECK_EQ_INT(end->reason, FLOWD_END_SHUTDOWN);
    CHECK_EQ_INT(end->shutdown_reason, FLOWD_SHUTDOWN_DAEMON_EXITING);
    CHECK_STR(end->shutdown_message, "bye");
    uint32_t bodies[4];
    CHECK_EQ_INT(read_bodies(peer, bodies, 4, NULL), 1);
    CHECK_EQ_INT(bodies[0], FW_PONG);
    close(peer);
    flowd_display_free(rec.display);
    fw_buffer *buffers[] = {&s10, &s11, &s12, &stack3, &stack4, &bar, &window, &transition, &scene, &error, &ping, &shutdown};
    for (size_t i = 0; i < sizeof buffers / sizeof *buffers; i++) fw_buffer_free(buffers[i]);
}

/* What a fake flowd sends after the Welcome ends the display with `code`, an Error frame to flowd and
 * `words` in the message. */
static void expect_display_refuses(const uint8_t *bytes, size_t size, int code, const char *words) {
    display_record rec;
    int peer;
    display_on_pair(&peer, &rec);
    CHECK(write(peer, bytes, size) == (ssize_t)size);
    CHECK(display_run_until(&rec, display_has_ended, 2000));
    const flowd_end *end = flowd_display_end(rec.display);
    CHECK_EQ_INT(end->reason, FLOWD_END_ERROR);
    CHECK_EQ_INT(end->error.code, code);
    if (!strstr(end->error.message, words)) {
        fprintf(stderr, "  message: %s\n", end->error.message);
        CHECK(strstr(end->error.message, words));
    }
    CHECK_EQ_INT(rec.scene_count, 0);
    uint32_t bodies[4];
    flowd_error sent = {0};
    CHECK_EQ_INT(read_bodies(peer, bodies, 4, &sent), 1);
    CHECK_EQ_INT(bodies[0], FW_ERROR);
    CHECK_EQ_INT(sent.code, code);
    CHECK(sent.fatal);
    close(peer);
    flowd_display_free(rec.display);
}

static void test_display_ends_with_an_error_at_a_malformed_scene(void) {
    fw_buffer deep = {0}, frame = {0};
    deep_scene(&deep, FLOWD_SCENE_MAX_DEPTH + 1);
    fw_put_frame(&frame, 3, 0, FW_DISPLAY_SCENE, &deep);
    expect_display_refuses(frame.data, frame.size, FLOWD_ERROR_MALFORMED_FRAME, "flowd sent a DisplayScene deeper than 64 levels");
    frame.size = 0;
    fw_buffer_free(&deep);
    deep_scene(&deep, 400); /* far deeper: refused the same way, without recursing past 64 */
    fw_put_frame(&frame, 3, 0, FW_DISPLAY_SCENE, &deep);
    CHECK(frame.size < 4096);
    expect_display_refuses(frame.data, frame.size, FLOWD_ERROR_MALFORMED_FRAME, "deeper than 64");
    fw_buffer_free(&deep);
    fw_buffer_free(&frame);
    const uint8_t bad_node[] = {6, 0, 0, 0, 0xe2, 0x03, 0x03, 0x1a, 0x01, 0x08}; /* window: a cut varint */
    expect_display_refuses(bad_node, sizeof bad_node, FLOWD_ERROR_MALFORMED_FRAME, "DisplayNode does not decode");
    const uint8_t place[] = {3, 0, 0, 0, 0xa2, 0x01, 0x00}; /* an empty Place */
    expect_display_refuses(place, sizeof place, FLOWD_ERROR_UNEXPECTED_MESSAGE, "body 20, which flowd never sends a display");
    const uint8_t large[] = {0x01, 0x10, 0, 0, 8}; /* 4097 bytes: over the Welcome's 4096 */
    expect_display_refuses(large, sizeof large, FLOWD_ERROR_FRAME_TOO_LARGE, "4097");
    const uint8_t fatal[] = {6, 0, 0, 0, 0x62, 0x04, 0x08, 0x04, 0x18, 0x01}; /* Error {UNAUTHORIZED, fatal} */
    display_record rec;
    int peer;
    display_on_pair(&peer, &rec);
    CHECK(write(peer, fatal, sizeof fatal) == (ssize_t)sizeof fatal);
    CHECK(display_run_until(&rec, display_has_ended, 2000));
    CHECK_EQ_INT(flowd_display_end(rec.display)->reason, FLOWD_END_ERROR);
    CHECK_EQ_INT(flowd_display_end(rec.display)->error.code, FLOWD_ERROR_UNAUTHORIZED);
    close(peer);
    flowd_display_free(rec.display);
}

/* ---- The runner ------------------------------------------------------------------------------------ */

typedef struct test {
    const char *name;
    void (*run)(void);
} test;

#define TEST(name) {#name, test_##name}
static const test tests[] = {
    TEST(handshake_says_who_flowd_is_and_reports_unknown_kinds),
    TEST(placed_updated_and_dismissed),
    TEST(an_output_round_trip_is_complete_when_ping_returns),
    TEST(back_with_a_cancelled_and_a_committed_gesture),
    TEST(close_modal),
    TEST(select_tab),
    TEST(bad_inputs_are_typed_errors_and_the_host_carries_on),
    TEST(an_unacked_command_times_out_and_the_screen_goes),
    TEST(a_deferred_ack_is_sent_by_hand),
    TEST(local_misuse_is_refused_before_sending),
    TEST(a_fatal_error_ends_the_host),
    TEST(connecting_and_spawning_errors),
    TEST(a_socket_another_user_serves_is_refused_before_anything_is_sent),
    TEST(bad_frames_from_the_daemon_end_the_host_with_an_error),
    TEST(a_spawned_host_ends_when_its_screen_is_dismissed),
    TEST(a_spawned_process_serves_its_one_screen_and_ends_with_it),
    TEST(resumes_after_a_cut),
    TEST(an_output_lost_in_a_cut_is_sent_again),
    TEST(an_output_applied_before_the_cut_is_not_applied_twice),
    TEST(a_saved_state_lost_in_a_cut_is_sent_again_and_the_screen_has_the_newest),
    TEST(a_refused_token_starts_fresh),
    TEST(saving_again_inside_placed_keeps_the_places_bytes_valid),
    TEST(a_host_stopped_while_a_refused_resume_forgets_its_screens_stays_stopped),
    TEST(an_output_over_the_frame_size_is_refused_before_it_is_sent),
    TEST(a_host_whose_write_fails_still_reads_the_fatal_error_before_it),
    TEST(a_host_without_reconnect_ends_at_a_drop),
    TEST(a_reconnecting_host_gives_up_after_its_limit),
    TEST(display_follows_push_and_pop_with_the_hosts_tokens),
    TEST(display_closes_a_modal_and_selects_a_tab),
    TEST(display_and_host_see_a_window_a_flow_opened),
    TEST(display_ends_when_flowd_goes_and_a_new_one_starts_from_the_next_scene),
    TEST(display_misuse_is_refused_before_sending),
    TEST(display_a_policy_refuses_ends_with_unauthorized),
    TEST(display_refuses_a_socket_another_user_serves),
    TEST(display_scene_decoder_bounds_the_depth_and_keeps_the_last_window),
    TEST(display_decodes_a_whole_scene_from_a_fake_flowd),
    TEST(display_ends_with_an_error_at_a_malformed_scene),
};

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    int failed = 0, ran = 0;
    for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
        bool wanted = argc < 2;
        for (int a = 1; a < argc; a++) wanted |= strstr(tests[i].name, argv[a]) != NULL;
        if (!wanted) continue;
        ran++;
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            tests[i].run();
            finish();
            exit(0);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        printf("%s %s\n", ok ? "ok  " : "FAIL", tests[i].name);
        if (!ok && WIFSIGNALED(status)) printf("     (signal %d)\n", WTERMSIG(status));
        failed += !ok;
    }
    printf("%d of %d C conformance tests passed\n", ran - failed, ran);
    return failed ? 1 : 0;
}
