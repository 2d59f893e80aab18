/*
 * libflowd-screen: host flowd screens from C, or from any language or toolkit that can call C.
 *
 * A host is one connection to flowd (and, for a host that connected on its own, the connections
 * it resumes on after a drop). It never blocks and has no threads: watch flowd_screen_fd() for
 * flowd_screen_events() in your event loop (GLib, Qt's QSocketNotifier, libuv, poll), call
 * flowd_screen_dispatch() when the descriptor is ready or flowd_screen_timeout_ms() has passed,
 * and it calls you back. Or call flowd_screen_run(), a poll(2) loop of those three.
 *
 *     static void placed(flowd_screen_host *host, const flowd_place *place, void *user) {
 *         printf("screen %llu: %s\n", (unsigned long long)place->screen_id, place->kind);
 *     }
 *     ...
 *     flowd_screen_options options;
 *     flowd_screen_options_init(&options);
 *     const char *kinds[] = {"tutorial"};
 *     options.name = "my screens";
 *     options.provides = kinds;
 *     options.provides_count = 1;
 *     options.callbacks.placed = placed;
 *     flowd_error error;
 *     flowd_screen_host *host = flowd_screen_open(&options, &error);
 *     if (!host) { fprintf(stderr, "%s\n", error.message); return 1; }
 *     flowd_screen_run(host);
 *     flowd_screen_free(host);
 *
 * The wire protocol is docs/protocol.md of flowd; this library implements a screen host of it:
 * the handshake (attached or spawned), Place/Update/PlacementChanged/Dismiss with acks (automatic,
 * or by hand), outputs and user navigation with input keys, SaveState, OpenLink, Ping/Pong, and
 * reconnecting with the resume token after a drop. Payloads are opaque bytes with a content type.
 * It also implements a display, which draws every host's screens (the section "Displays" below).
 * The manual is flowd-screen(3); docs/native.md has the guide.
 *
 * Every pointer a callback receives is valid until that callback returns: copy what you keep.
 * Inside a callback, every function that sends and flowd_screen_stop() may be called; dispatch,
 * run and free may not. The options (and their strings) are copied by the call that takes them.
 * Ask for the descriptor, its events and the timeout again after every dispatch and every send.
 * Call the library from one thread (the one that runs your event loop).
 */
#ifndef FLOWD_SCREEN_H
#define FLOWD_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FLOWD_SCREEN_VERSION "0.1.0"
/* The protocol version this library speaks (docs/protocol.md). */
#define FLOWD_SCREEN_PROTOCOL_VERSION 1
/* The most bytes flowd keeps for one screen's SaveState. */
#define FLOWD_SCREEN_MAX_SAVED_STATE 16384

/* ---- Errors --------------------------------------------------------------------------------- */

/* Codes 0 to 23 are the wire's ErrorCode (docs/protocol.md section 13); 1000 and above are this
 * library's own. Treat codes you do not know as FLOWD_ERROR_UNSPECIFIED. */
typedef enum flowd_error_code {
    FLOWD_ERROR_UNSPECIFIED = 0,
    FLOWD_ERROR_MALFORMED_FRAME = 1,
    FLOWD_ERROR_FRAME_TOO_LARGE = 2,
    FLOWD_ERROR_UNSUPPORTED_VERSION = 3,
    FLOWD_ERROR_UNAUTHORIZED = 4,
    FLOWD_ERROR_UNEXPECTED_MESSAGE = 5,
    FLOWD_ERROR_HANDSHAKE_TIMEOUT = 6,
    FLOWD_ERROR_UNKNOWN_SCREEN = 7,
    FLOWD_ERROR_NOT_YOUR_SCREEN = 8,
    FLOWD_ERROR_UNKNOWN_SERIAL = 9,
    FLOWD_ERROR_BAD_PAYLOAD = 10,
    FLOWD_ERROR_ACK_TIMEOUT = 11,
    FLOWD_ERROR_WRITE_QUEUE_OVERFLOW = 12,
    FLOWD_ERROR_UNKNOWN_KIND = 13,
    FLOWD_ERROR_INVALID_NAVIGATION = 14,
    FLOWD_ERROR_UNKNOWN_FLOW = 15,
    FLOWD_ERROR_LIMIT_EXCEEDED = 16,
    FLOWD_ERROR_SHUTTING_DOWN = 17,
    FLOWD_ERROR_INTERNAL = 18,
    FLOWD_ERROR_RESUME_REFUSED = 19,
    FLOWD_ERROR_BAD_LINK = 20,
    FLOWD_ERROR_UNKNOWN_LINK = 21,
    FLOWD_ERROR_LINK_REFUSED = 22,
    FLOWD_ERROR_FRAME_TIMEOUT = 23,

    FLOWD_ERROR_INVALID_ARGUMENT = 1000, /* a call was given what it cannot take; nothing was sent */
    FLOWD_ERROR_CONNECT = 1001,          /* the socket could not be reached (errno in the message) */
    FLOWD_ERROR_NOT_SPAWNED = 1002,      /* FLOWD_SOCKET_FD/FLOWD_TOKEN are missing or wrong */
    FLOWD_ERROR_IO = 1003,               /* a read or write failed (errno in the message) */
    FLOWD_ERROR_CLOSED = 1004,           /* the host has ended, or is reconnecting */
    FLOWD_ERROR_NO_MEMORY = 1005,
    FLOWD_ERROR_NO_WELCOME = 1006,       /* flowd did not answer Hello within the handshake timeout */
    FLOWD_ERROR_NOT_HOSTED = 1007,       /* the screen is not one this host shows (checked locally) */
    FLOWD_ERROR_UNTRUSTED_SERVER = 1008, /* another user (not ours, not root) serves the socket: refused
                                          * before anything was sent, and not dialled again */
} flowd_error_code;

typedef struct flowd_error {
    int code;                /* a flowd_error_code */
    bool fatal;              /* from flowd: it closes the connection after this error */
    uint64_t screen_id;      /* 0 when the error is about no screen */
    uint64_t serial;
    char message[512];       /* for people; always NUL-terminated */
} flowd_error;

/* "MALFORMED_FRAME", ..., "UNTRUSTED_SERVER"; "UNSPECIFIED" for a code it does not know. */
const char *flowd_error_name(int code);

/* ---- What flowd sends ----------------------------------------------------------------------- */

typedef struct flowd_payload {
    const char *content_type; /* "application/json" (or ""), or "application/protobuf; proto=..." */
    const uint8_t *data;
    size_t size;
} flowd_payload;

typedef enum flowd_node_kind {
    FLOWD_NODE_UNSPECIFIED = 0,
    FLOWD_NODE_WINDOW = 1,
    FLOWD_NODE_STACK = 2,
    FLOWD_NODE_TAB_BAR = 3,
    FLOWD_NODE_SCREEN = 4,
} flowd_node_kind;

/* One element of a placement's path, from the window to the screen (docs/protocol.md section 7). */
typedef struct flowd_path_step {
    int kind;               /* a flowd_node_kind */
    uint64_t id;
    uint32_t index;         /* position in the previous element: stack index, tab index, else 0 */
    bool presented;         /* presented modally on the previous element */
    uint32_t tab_count;     /* tab bars: the number of tabs */
    uint64_t presenter_id;  /* presented elements: the node presented on */
    const char *display;    /* windows: the display of a window a flow opened (its id is not 1); else "" */
} flowd_path_step;

typedef struct flowd_placement {
    const flowd_path_step *path;
    size_t path_count;
    bool visible;
    bool top_most;
} flowd_placement;

/* Where the screen is in its stack, and whether back applies to it: a host draws its back button
 * from this. -1 when the screen is not in a stack. */
int flowd_placement_stack_index(const flowd_placement *placement);
/* The tab bar the screen is in (innermost): its tab count and the screen's tab; false if none. */
bool flowd_placement_tab(const flowd_placement *placement, uint32_t *tab, uint32_t *tab_count);
/* True when the screen is inside a modal presentation (close_modal applies). */
bool flowd_placement_is_modal(const flowd_placement *placement);

typedef struct flowd_place {
    uint64_t screen_id;
    const char *kind;
    flowd_payload state;
    flowd_placement placement;
    uint64_t serial;
    bool animated;
    uint64_t flow_id;
    const char *flow_type;
    const uint8_t *saved_state; /* what a host saved with flowd_screen_save_state; empty if new */
    size_t saved_state_size;
    /* The secret of this placement (32 hex digits; "" when flowd sent none): a host drawing under a
     * display (flowd-shell) presents it with the screen's surface, and the display shows that surface
     * as this screen. A new one with every Place. */
    const char *display_token;
} flowd_place;

typedef struct flowd_update {
    uint64_t screen_id;
    uint64_t serial;
    flowd_payload state;
} flowd_update;

typedef enum flowd_change {
    FLOWD_CHANGE_UNSPECIFIED = 0,
    FLOWD_CHANGE_COVERED = 1,
    FLOWD_CHANGE_UNCOVERED = 2,
    FLOWD_CHANGE_MOVED = 3,
    FLOWD_CHANGE_TAB_SELECTED = 4,
    FLOWD_CHANGE_TAB_DESELECTED = 5,
} flowd_change;

typedef struct flowd_placement_changed {
    uint64_t screen_id;
    uint64_t serial;
    int change; /* a flowd_change */
    flowd_placement placement;
} flowd_placement_changed;

typedef enum flowd_dismiss_reason {
    FLOWD_DISMISS_UNSPECIFIED = 0,
    FLOWD_DISMISS_FLOW_FINISHED = 1,
    FLOWD_DISMISS_FLOW_TERMINATED = 2,
    FLOWD_DISMISS_USER_NAVIGATION = 3, /* already gone from view: do not animate */
    FLOWD_DISMISS_SHUTDOWN = 4,
    FLOWD_DISMISS_REMOVED = 5,
    /* This library's own (serial 0, nothing is acked): */
    FLOWD_DISMISS_ACK_TIMEOUT = 100,     /* flowd removed the screen by force (ACK_TIMEOUT) */
    FLOWD_DISMISS_RESUMED = 101,         /* resumed on a new connection: a Place with its id follows
                                            if the screen still exists */
    FLOWD_DISMISS_CONNECTION_LOST = 102, /* the connection ended and could not be resumed */
} flowd_dismiss_reason;

typedef struct flowd_dismiss {
    uint64_t screen_id;
    uint64_t serial;
    bool animated;
    int reason; /* a flowd_dismiss_reason */
} flowd_dismiss;

typedef struct flowd_welcome {
    uint32_t version;
    uint64_t connection_id;
    const char *server;       /* e.g. "flowd 0.1.0" */
    uint32_t max_frame_size;
    const char *app;
    uint32_t resume_grace_ms;
    bool resumed;             /* a resume was accepted: Place frames for the old screens follow */
    bool spawned;             /* this host was spawned by flowd for one screen */
} flowd_welcome;

typedef struct flowd_link_opened {
    const char *link;
    const char *place;
    const char *message;
    uint64_t visible_screen;
} flowd_link_opened;

/* What a host goes through between connections (its `connection` callback). */
typedef enum flowd_connection_event_kind {
    FLOWD_CONNECTION_DROPPED = 1,        /* lost; reconnecting to resume (screens kept meanwhile) */
    FLOWD_CONNECTION_RECONNECTED = 2,    /* a new Welcome; `resumed` says whether the screens follow */
    FLOWD_CONNECTION_RESUME_REFUSED = 3, /* the token was refused: the next try starts fresh */
    FLOWD_CONNECTION_RESENT = 4,         /* `inputs` unconfirmed inputs were sent again with their keys */
    FLOWD_CONNECTION_GAVE_UP = 5,        /* no try succeeded in time: the host ends */
} flowd_connection_event_kind;

typedef struct flowd_connection_event {
    int kind;            /* a flowd_connection_event_kind */
    unsigned attempts;   /* tries so far (RECONNECTED, GAVE_UP) */
    bool resumed;        /* RECONNECTED */
    size_t inputs;       /* RESENT */
    size_t screens;      /* DROPPED: the screens kept while reconnecting */
    const char *text;    /* a log line that says all of it */
} flowd_connection_event;

typedef struct flowd_screen_host flowd_screen_host;

/* Every callback is optional. Commands about a screen (placed, updated, placement_changed,
 * dismissed) are acked when the callback returns, unless the host acks by hand (options.manual_acks,
 * or flowd_screen_defer_ack() inside the callback). */
typedef struct flowd_screen_callbacks {
    void (*welcomed)(flowd_screen_host *host, const flowd_welcome *welcome, void *user);
    void (*placed)(flowd_screen_host *host, const flowd_place *place, void *user);
    void (*updated)(flowd_screen_host *host, const flowd_update *update, void *user);
    void (*placement_changed)(flowd_screen_host *host, const flowd_placement_changed *change, void *user);
    void (*dismissed)(flowd_screen_host *host, const flowd_dismiss *dismiss, void *user);
    /* A non-fatal error from flowd: a refused output or navigation, UNKNOWN_KIND, ACK_TIMEOUT, ...
     * A fatal one ends the host instead (flowd_screen_end). */
    void (*error)(flowd_screen_host *host, const flowd_error *error, void *user);
    /* The Pong of a flowd_screen_ping() (not of the pings the library sends after each input). */
    void (*pong)(flowd_screen_host *host, uint64_t nonce, void *user);
    void (*link_opened)(flowd_screen_host *host, const flowd_link_opened *opened, void *user);
    void (*connection)(flowd_screen_host *host, const flowd_connection_event *event, void *user);
} flowd_screen_callbacks;

/* ---- Starting a host ------------------------------------------------------------------------ */

typedef struct flowd_screen_options {
    const char *name;                 /* for flowd's logs and `flowctl tree` */
    const char *const *provides;      /* the kinds this host shows (attached hosts) */
    size_t provides_count;
    const char *socket_path;          /* NULL: $FLOWD_SOCKET, $XDG_RUNTIME_DIR/flowd/flowd.sock,
                                         /tmp/flowd-UID/flowd.sock */
    uint32_t max_frame_size;          /* the largest frame accepted; 0: 1 MiB; else at least 4096 */
    uint32_t handshake_timeout_ms;    /* how long to wait for Welcome; default 5000 */
    bool manual_acks;                 /* ack every command with flowd_screen_ack() */
    bool reconnect;                   /* attached hosts: resume after a drop; default true */
    uint32_t reconnect_initial_ms;    /* first wait after a drop, doubled per try; default 25 */
    uint32_t reconnect_max_ms;        /* the longest wait between tries; default 500 */
    int32_t give_up_after_ms;         /* -1 (default): the daemon's resume grace plus 1 s */
    flowd_screen_callbacks callbacks;
    void *user;                       /* passed to every callback */
} flowd_screen_options;

/* Fills in the defaults; set what you need after it. */
void flowd_screen_options_init(flowd_screen_options *options);

/* Connects to flowd's named socket and sends Hello; the Welcome arrives through dispatch (the
 * `welcomed` callback). NULL and `error` filled in if it cannot (FLOWD_ERROR_CONNECT, ...). */
flowd_screen_host *flowd_screen_connect(const flowd_screen_options *options, flowd_error *error);
/* A host spawned by flowd for one screen: uses FLOWD_SOCKET_FD and FLOWD_TOKEN. NULL with
 * FLOWD_ERROR_NOT_SPAWNED if they are not set. Such a host ends when its screen is dismissed. */
flowd_screen_host *flowd_screen_spawned(const flowd_screen_options *options, flowd_error *error);
/* flowd_screen_spawned() when this process was spawned by flowd, else flowd_screen_connect(). */
flowd_screen_host *flowd_screen_open(const flowd_screen_options *options, flowd_error *error);
/* True when FLOWD_SOCKET_FD is set: this process was spawned by flowd. */
bool flowd_screen_is_spawned(void);

/* Closes the connection (without Shutdown) and frees everything. */
void flowd_screen_free(flowd_screen_host *host);

/* ---- Driving it from an event loop ---------------------------------------------------------- */

/* The descriptor to watch; it changes when the host reconnects, and is -1 while it waits between
 * tries (then only the timeout matters). Ask for it, its events and the timeout again after every
 * dispatch and after every call that sends (a send the socket did not take whole waits for POLLOUT). */
int flowd_screen_fd(const flowd_screen_host *host);
/* POLLIN, plus POLLOUT while frames wait to be written. 0 when there is no descriptor. */
short flowd_screen_events(const flowd_screen_host *host);
/* Milliseconds until dispatch must run even if nothing is readable (a reconnect try, the
 * handshake timeout); -1 when there is no deadline. */
int flowd_screen_timeout_ms(const flowd_screen_host *host);
/* Reads and writes what it can without blocking, runs the callbacks, answers pings and acks.
 * Returns 0 while the host runs, 1 once it has ended (see flowd_screen_end). */
int flowd_screen_dispatch(flowd_screen_host *host);
/* poll(2) over fd, events and timeout, then dispatch, until the host ends. Returns the end reason. */
int flowd_screen_run(flowd_screen_host *host);

typedef enum flowd_end_reason {
    FLOWD_END_NONE = 0,             /* still running */
    FLOWD_END_SHUTDOWN = 1,         /* flowd sent Shutdown (shutdown_reason says which) */
    FLOWD_END_SCREEN_DISMISSED = 2, /* a spawned host's screen is gone */
    FLOWD_END_CONNECTION_CLOSED = 3,/* end of stream (a reconnecting host: once it gave up) */
    FLOWD_END_STOPPED = 4,          /* flowd_screen_stop() */
    FLOWD_END_ERROR = 5,            /* a fatal error, either side's: `error` says which */
} flowd_end_reason;

typedef enum flowd_shutdown_reason {
    FLOWD_SHUTDOWN_UNSPECIFIED = 0,
    FLOWD_SHUTDOWN_DAEMON_EXITING = 1,
    FLOWD_SHUTDOWN_APP_FINISHED = 2,
    FLOWD_SHUTDOWN_SCREEN_DISMISSED = 3,
    FLOWD_SHUTDOWN_PROTOCOL_ERROR = 4,
    FLOWD_SHUTDOWN_HUNG = 5,
} flowd_shutdown_reason;

typedef struct flowd_end {
    int reason;           /* a flowd_end_reason */
    int shutdown_reason;  /* FLOWD_END_SHUTDOWN: a flowd_shutdown_reason */
    char shutdown_message[256];
    flowd_error error;    /* FLOWD_END_ERROR; for a display, FLOWD_END_CONNECTION_CLOSED too */
} flowd_end;

/* Why the host ended; reason FLOWD_END_NONE while it runs. */
const flowd_end *flowd_screen_end(const flowd_screen_host *host);
/* The latest Welcome, or NULL before the first. */
const flowd_welcome *flowd_screen_welcome(const flowd_screen_host *host);
/* The screens this host shows now. */
size_t flowd_screen_count(const flowd_screen_host *host);
/* Says Shutdown to flowd, closes, and ends the host (FLOWD_END_STOPPED). */
void flowd_screen_stop(flowd_screen_host *host);

/* ---- Answering -------------------------------------------------------------------------------
 * Each returns 0, or -1 with `error` filled in (error may be NULL). Inputs for a screen this host
 * does not show are refused locally (FLOWD_ERROR_NOT_HOSTED) and not sent. While the host
 * reconnects, outputs and navigation are kept and sent after the new Welcome. */

typedef enum flowd_phase {
    FLOWD_PHASE_IMMEDIATE = 0, /* a button press */
    FLOWD_PHASE_BEGIN = 1,     /* an interactive gesture started */
    FLOWD_PHASE_CANCEL = 2,    /* it was abandoned */
    FLOWD_PHASE_COMMIT = 3,    /* it completed */
} flowd_phase;

/* An output in the kind's content type, or as JSON ("application/json"). Keyed and followed by a
 * Ping: flowd applies it once even if it is sent again after a drop. */
int flowd_screen_send_output(flowd_screen_host *host, uint64_t screen_id, const flowd_payload *payload,
                             flowd_error *error);
/* The same with a NUL-terminated JSON text, e.g. {"didPressButton":{"index":1}}. */
int flowd_screen_send_json(flowd_screen_host *host, uint64_t screen_id, const char *json, flowd_error *error);
int flowd_screen_back(flowd_screen_host *host, uint64_t screen_id, flowd_phase phase, flowd_error *error);
int flowd_screen_close_modal(flowd_screen_host *host, uint64_t screen_id, flowd_phase phase, flowd_error *error);
/* The user closes the window that holds the screen: a window a flow opened on another display (the
 * path's first step has a display); flowd refuses it for the app's main window. */
int flowd_screen_close_window(flowd_screen_host *host, uint64_t screen_id, flowd_phase phase, flowd_error *error);
int flowd_screen_select_tab(flowd_screen_host *host, uint64_t screen_id, uint32_t index, flowd_error *error);
/* Keeps bytes of the host's own (a half-typed line) with flowd for the screen; at most
 * FLOWD_SCREEN_MAX_SAVED_STATE bytes. They come back in flowd_place.saved_state. */
int flowd_screen_save_state(flowd_screen_host *host, uint64_t screen_id, const void *data, size_t size,
                            flowd_error *error);
/* Opens a place of the app by link; the answer is the `link_opened` or `error` callback. */
int flowd_screen_open_link(flowd_screen_host *host, const char *link, flowd_error *error);
/* Sends Ping; the `pong` callback gets the nonce once every frame sent before it was handled. */
int flowd_screen_ping(flowd_screen_host *host, uint64_t *nonce, flowd_error *error);

/* Acks a command by hand (options.manual_acks, or after flowd_screen_defer_ack). Acks every earlier
 * serial of the screen too. */
int flowd_screen_ack(flowd_screen_host *host, uint64_t screen_id, uint64_t serial, flowd_error *error);
/* Inside a command's callback: do not ack this command when the callback returns (ack it later,
 * e.g. when an animation has drawn it). */
void flowd_screen_defer_ack(flowd_screen_host *host);
/* Refuses a command whose state this host cannot use (BAD_PAYLOAD, not acked): flowd reports it
 * as SCREEN_REFUSED and keeps the old state, or removes a new screen at the ack timeout. */
int flowd_screen_refuse(flowd_screen_host *host, uint64_t screen_id, uint64_t serial, const char *message,
                        flowd_error *error);

/* ---- Displays ---------------------------------------------------------------------------------
 * A display draws the screens of every host on one display (flowd-shell, a Wayland compositor, is
 * one; docs/protocol.md section 24). It is a connection of its own with the display role: after its
 * Welcome and after every change of the navigation model flowd sends it the whole scene (the tree
 * from the window down, the visible screen, how it changed), and it sends the user's navigation for
 * any screen. It hosts no screen: each host presents Place's display_token with its surface, and
 * the display shows that surface as the screen whose node has the same token.
 *
 * A display is driven like a host (fd, events, timeout, dispatch) and follows the same rules for
 * callbacks and threads. It does not reconnect: when flowd goes away the display ends
 * (FLOWD_END_CONNECTION_CLOSED; end->error.message says what closed it), and the caller connects a
 * new one when it wants to, then applies the first scene it gets (each scene is whole). */

/* A scene deeper than this (the window is at depth 1) is a malformed frame: the display ends. */
#define FLOWD_SCENE_MAX_DEPTH 64

typedef struct flowd_scene_node flowd_scene_node;
struct flowd_scene_node {
    uint64_t id;
    int kind;                          /* a flowd_node_kind */
    const flowd_scene_node *children;  /* stack: bottom first; tab bar: one per tab; window: its root */
    size_t child_count;
    const flowd_scene_node *presented; /* the node presented modally on this one, or NULL */
    uint32_t selected_tab;             /* tab bars: the selected tab */
    /* Screens (flowd sets these on screens only): */
    const char *screen_kind;           /* else "" */
    bool visible;                      /* the one seen in its part of the tree: top of its stack, in
                                          the selected tab, not covered by a modal */
    uint64_t flow_id;                  /* the owning flow */
    const char *flow_type;
    const char *display_token;         /* the token of the screen's last Place; "" until a host has it */
};

typedef enum flowd_transition_kind {
    FLOWD_TRANSITION_NONE = 0,    /* the visible screen did not change, or the first scene */
    FLOWD_TRANSITION_PUSH = 1,    /* a screen pushed on the stack of the one that was visible */
    FLOWD_TRANSITION_POP = 2,     /* the visible screen popped; the one below it shows */
    FLOWD_TRANSITION_PRESENT = 3, /* a modal presented over the one that was visible */
    FLOWD_TRANSITION_DISMISS = 4, /* the visible modal closed */
    FLOWD_TRANSITION_TAB = 5,     /* another tab of the same tab bar */
    FLOWD_TRANSITION_REPLACE = 6, /* any other change (a root replaced, a restore); also a kind this
                                     library does not know */
} flowd_transition_kind;

/* A window a flow opened on another display (docs/flows.md, "Windows on several displays"): the
 * display of that name draws it. */
typedef struct flowd_scene_window {
    const flowd_scene_node *window; /* never NULL: its node (FLOWD_NODE_WINDOW, its own id), root, modals */
    const char *display;            /* the display the flow named, e.g. "customer" */
    uint64_t visible_screen;        /* its visible screen (0: none) */
    int transition;                 /* a flowd_transition_kind: since the previous scene to this display */
    bool animated;
    uint64_t from_screen, to_screen;
} flowd_scene_window;

typedef struct flowd_scene {
    uint64_t seq;                   /* counts flowd's scenes from 1 over all displays: there may be gaps */
    const char *app;
    const flowd_scene_node *window; /* never NULL: an empty window node at worst */
    int transition;                 /* a flowd_transition_kind: since the previous scene to this display */
    bool animated;                  /* the Place or Dismiss that caused it asked for animation */
    uint64_t from_screen;           /* the screen visible before (0: none) */
    uint64_t to_screen;             /* and after */
    uint64_t visible_screen;        /* the screen the user sees (0: none) */
    /* The windows flows opened on other displays, oldest first (none with one window). */
    const flowd_scene_window *other_windows;
    size_t other_window_count;
} flowd_scene;

typedef struct flowd_display flowd_display;

/* Every callback is optional; every pointer is valid during the call only. */
typedef struct flowd_display_callbacks {
    void (*welcomed)(flowd_display *display, const flowd_welcome *welcome, void *user);
    /* The whole scene, replacing the one before: after Welcome, then after every change. */
    void (*scene)(flowd_display *display, const flowd_scene *scene, void *user);
    /* A non-fatal error from flowd, e.g. INVALID_NAVIGATION for a refused back. A fatal one ends the
     * display instead (flowd_display_end). */
    void (*error)(flowd_display *display, const flowd_error *error, void *user);
    /* The Pong of a flowd_display_ping(): the scene that navigation sent before it caused came first. */
    void (*pong)(flowd_display *display, uint64_t nonce, void *user);
} flowd_display_callbacks;

typedef struct flowd_display_options {
    const char *name;              /* for flowd's logs and `flowctl tree` */
    const char *socket_path;       /* NULL: the same search as hosts ($FLOWD_SOCKET, ...) */
    uint32_t max_frame_size;       /* the largest frame accepted; 0: 1 MiB; else at least 4096 */
    uint32_t handshake_timeout_ms; /* how long to wait for Welcome; default 5000 */
    flowd_display_callbacks callbacks;
    void *user;                    /* passed to every callback */
} flowd_display_options;

/* Fills in the defaults; set what you need after it. */
void flowd_display_options_init(flowd_display_options *options);
/* Connects to flowd's named socket and sends Hello with the display role; the Welcome and the first
 * scene arrive through dispatch. NULL and `error` filled in if it cannot: FLOWD_ERROR_CONNECT,
 * FLOWD_ERROR_UNTRUSTED_SERVER (another user serves the socket: nothing was sent), ... A peer the
 * app's policy does not admit (`display by PEERS`) ends at dispatch with flowd's fatal UNAUTHORIZED. */
flowd_display *flowd_display_connect(const flowd_display_options *options, flowd_error *error);
/* Closes the connection (without Shutdown) and frees everything. */
void flowd_display_free(flowd_display *display);

/* As flowd_screen_fd, _events and _timeout_ms: ask again after every dispatch and every send. */
int flowd_display_fd(const flowd_display *display);
short flowd_display_events(const flowd_display *display);
int flowd_display_timeout_ms(const flowd_display *display);
/* Reads and writes what it can without blocking, runs the callbacks, answers flowd's pings. Returns
 * 0 while the display runs, 1 once it has ended (see flowd_display_end). */
int flowd_display_dispatch(flowd_display *display);
/* Why the display ended: FLOWD_END_SHUTDOWN, _CONNECTION_CLOSED (error.code FLOWD_ERROR_CLOSED at
 * the end of the stream, FLOWD_ERROR_IO for a failed read or write; connect again to carry on),
 * _STOPPED or _ERROR (a malformed frame from flowd, a fatal Error of flowd's, no Welcome in time);
 * reason FLOWD_END_NONE while it runs. */
const flowd_end *flowd_display_end(const flowd_display *display);
/* The Welcome, or NULL before it. */
const flowd_welcome *flowd_display_welcome(const flowd_display *display);
/* Says Shutdown to flowd, closes, and ends the display (FLOWD_END_STOPPED). */
void flowd_display_stop(flowd_display *display);

/* The user's navigation on any screen of the scene, checked by flowd as a host's is (a refusal comes
 * to the `error` callback; a cancelled gesture changes nothing). Each returns 0, or -1 with `error`
 * filled in (error may be NULL): FLOWD_ERROR_CLOSED before the Welcome and after the end,
 * FLOWD_ERROR_INVALID_ARGUMENT for screen 0 or a phase that is not one. Nothing is kept to send
 * again: a display that connects again starts from the new scene. */
int flowd_display_back(flowd_display *display, uint64_t screen_id, flowd_phase phase, flowd_error *error);
int flowd_display_close_modal(flowd_display *display, uint64_t screen_id, flowd_phase phase, flowd_error *error);
/* Closes the window `screen_id` is in: a window a flow opened (the main window cannot be closed). */
int flowd_display_close_window(flowd_display *display, uint64_t screen_id, flowd_phase phase, flowd_error *error);
int flowd_display_select_tab(flowd_display *display, uint64_t screen_id, uint32_t index, flowd_error *error);
/* A display this process draws on (docs/protocol.md section 24, ProvideDisplays): `id` is what flows
 * call it (window(on: "customer"); "main" is the main window's), `name` what the device calls it
 * ("HDMI-A-1", may be NULL), and its size in pixels (0: not known). */
typedef struct flowd_provided_display {
    const char *id;
    const char *name;
    uint32_t width, height;
} flowd_provided_display;
#define FLOWD_MAX_PROVIDED_DISPLAYS 16
#define FLOWD_MAX_DISPLAY_ID 64 /* bytes, for an id and for a name */
/* Tells flowd the displays this process provides: all of them, each call replacing the last (count 0
 * withdraws them); flowd drops them when the connection closes. Before the Welcome it is kept and
 * sent with it; call it again after connecting anew. A window a flow opens with `whenAbsent: .fail`
 * on a display no connection provides fails. Returns 0, or -1 with `error` filled in:
 * FLOWD_ERROR_INVALID_ARGUMENT (over 16 displays, an id empty or over 64 bytes, a name over 64, an
 * id twice), FLOWD_ERROR_CLOSED after the end. */
int flowd_display_provide(flowd_display *display, const flowd_provided_display *displays, size_t count, flowd_error *error);
/* Sends Ping; the `pong` callback gets the nonce once every frame sent before it was handled, and
 * after the scene that any navigation sent before it caused. */
int flowd_display_ping(flowd_display *display, uint64_t *nonce, flowd_error *error);

#ifdef __cplusplus
}
#endif

#endif /* FLOWD_SCREEN_H */
