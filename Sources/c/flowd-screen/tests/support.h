/* What the C conformance tests share: a real flowd, a proxy that cuts or loses frames, a host that
 * records what flowd did to it, and the demo's CardState read from its protobuf bytes. */
#ifndef FLOWD_SCREEN_TEST_SUPPORT_H
#define FLOWD_SCREEN_TEST_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "flowd/screen.h"

/* ---- Checks: a failed one reports and ends the test (longjmp to the runner). ---- */
void check_failed(const char *file, int line, const char *text);
#define CHECK(condition) \
    do { if (!(condition)) check_failed(__FILE__, __LINE__, #condition); } while (0)
#define CHECK_EQ_INT(a, b) \
    do { long long a_ = (long long)(a), b_ = (long long)(b); if (a_ != b_) { char t_[512]; \
         snprintf(t_, sizeof t_, "%s == %s (%lld != %lld)", #a, #b, a_, b_); check_failed(__FILE__, __LINE__, t_); } } while (0)
#define CHECK_STR(a, b) \
    do { const char *a_ = (a), *b_ = (b); if (!a_ || !b_ || strcmp(a_, b_)) { char t_[1024]; \
         snprintf(t_, sizeof t_, "%s == %s ('%s' != '%s')", #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
         check_failed(__FILE__, __LINE__, t_); } } while (0)

/* ---- flowd ---- */
typedef struct daemon_process {
    pid_t pid;
    char directory[64];
    char socket_path[128];
    char log_path[128];
} daemon_process;

/* `flowd serve --app APP --socket DIR/flowd.sock --no-state ARGS...` (NULL-terminated), ready once it
 * logs "listening on"; in `directory` if given (a successor on the same socket), else a new one. */
void daemon_start(daemon_process *daemon, const char *app, const char *directory, const char *const *arguments);
int daemon_wait(daemon_process *daemon, int timeout_ms); /* the exit status, or -1 */
void daemon_kill(daemon_process *daemon);
void daemon_stop(daemon_process *daemon);                /* kill and remove the directory */
char *daemon_log(const daemon_process *daemon);          /* malloc'd */
int daemon_wait_for_log(const daemon_process *daemon, const char *text, int timeout_ms);

/* ---- A proxy between host and flowd ---- */
typedef struct proxy proxy;
proxy *proxy_start(const char *daemon_path, const char *path);
void proxy_cut(proxy *proxy);
/* Loses the next frame going up (host to flowd, up = 1) or down whose envelope body is `body_field`,
 * and cuts the connection right there, as a crash of the link would. */
void proxy_lose_next(proxy *proxy, int up, unsigned body_field);
int proxy_lost(proxy *proxy);
int proxy_connections(proxy *proxy);
void proxy_close(proxy *proxy);

/* ---- A recording host ---- */
typedef struct card {
    char title[128];
    int buttons;
} card;

typedef struct seen_screen {
    uint64_t id;
    char kind[32];
    char title[128];
    uint64_t serial;
    bool animated;
    bool visible;
    bool dismissed;
    int dismiss_reason;
    int stack_index;
    bool modal;
    int path_kinds[8];
    int path_count;
    uint64_t window_id;      /* the first path element: 1, or a window a flow opened */
    char window_display[32]; /* that element's display */
    uint32_t tab_count;
    char saved[256];
    char token[48];          /* Place.display_token */
} seen_screen;

typedef struct record {
    flowd_screen_host *host;
    seen_screen screens[64]; /* every screen placed, in order (a Place again is a new entry) */
    int screen_count;
    char lines[64][160];     /* "+ kind title", "~ kind title", "> title CHANGE", "- title REASON" */
    int line_count;
    flowd_error errors[16];
    int error_count;
    int connection_events[16];
    int connection_event_count;
    size_t resent;
    uint64_t pongs[16];
    int pong_count;
    bool welcomed;
    bool defer_places; /* defer the ack of every Place (flowd_screen_defer_ack) */
    bool save_in_placed; /* save a state inside `placed`, before reading the Place's saved state */
    bool stop_on_dismiss; /* flowd_screen_stop inside `dismissed` */
} record;

/* A host on `path` providing the NULL-terminated `kinds`, recording into `rec`. */
flowd_screen_host *record_connect(record *rec, const char *path, const char *const *kinds, flowd_screen_options *base);
void record_callbacks(flowd_screen_options *options, record *rec);
/* The newest live entry for the screen whose card has `title`; fails the test if none. */
seen_screen *record_screen(record *rec, const char *title);
/* A Ping, then dispatch until its Pong (or fail the test after `timeout_ms`). */
void barrier(record *rec, int timeout_ms);
/* dispatch until `done(rec)` or the host ends or `timeout_ms` pass; returns done's value. */
bool run_until(record *rec, bool (*done)(record *), int timeout_ms);
bool host_ended(record *rec);

/* ---- A recording display ---- */
typedef struct seen_node {
    uint64_t id;
    int kind;
    int depth;            /* the window is 1 */
    bool presented;       /* reached as the node presented on its parent */
    size_t child_count;
    uint32_t selected_tab;
    char screen_kind[32];
    bool visible;
    uint64_t flow_id;
    char flow_type[48];
    char token[48];
} seen_node;

typedef struct seen_scene {
    uint64_t seq;
    char app[32];
    int transition;
    bool animated;
    uint64_t from_screen, to_screen, visible_screen;
    seen_node nodes[80];  /* the tree depth-first, each node before its children, then its presented;
                             then each other window's */
    int node_count;
    int max_depth;
    struct {
        uint64_t id, visible_screen;
        char display[32];
        int transition;
    } windows[4];         /* the other windows (the first four) */
    int window_count;
} seen_scene;

typedef struct display_record {
    flowd_display *display;
    seen_scene scenes[32]; /* every scene, in order (the 33rd and later overwrite the last) */
    int scene_count;
    flowd_error errors[16];
    int error_count;
    uint64_t pongs[16];
    int pong_count;
    bool welcomed;
    char app[32];
} display_record;

/* A display on `path` recording into `rec` (on a fake flowd's descriptor: fl_display_on_fd, display_callbacks). */
flowd_display *display_connect(display_record *rec, const char *path);
void display_callbacks(flowd_display_options *options, display_record *rec);
/* The newest scene; fails the test if there is none. */
const seen_scene *display_last(display_record *rec);
/* The node `id` of `scene`; fails the test if it has none. */
const seen_node *scene_node(const seen_scene *scene, uint64_t id);
/* A Ping, then dispatch until its Pong: the scenes flowd sent before are in by then. */
void display_barrier(display_record *rec, int timeout_ms);
bool display_run_until(display_record *rec, bool (*done)(display_record *), int timeout_ms);
bool display_ended(display_record *rec);

/* The demo's CardState (proto/flowd/demo/v1/cards.proto) from its bytes: title and buttons. */
void card_decode(const uint8_t *data, size_t size, card *out);

#define PRESS(index) "{\"didPressButton\":{\"index\":" #index "}}"

#endif
