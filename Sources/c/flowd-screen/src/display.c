/* A display (docs/protocol.md section 24): a connection with the display role that receives the
 * whole scene after its Welcome and after every change of the model, and sends the user's navigation
 * for any screen. It shares the connection (link.c) and the wire (wire.c) with hosts; it has no
 * screens, acks, input keys or reconnecting: its caller connects again when it ends. */
#include "display.h"

#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum fl_display_phase {
    DISPLAY_HANDSHAKE = 0, /* Hello sent, waiting for Welcome */
    DISPLAY_READY = 1,     /* welcomed: scenes in, navigation out */
    DISPLAY_ENDED = 2,
} fl_display_phase;

struct flowd_display {
    flowd_display_options options; /* name and socket_path are the copies below */
    char *name;
    char *socket_path;

    fl_display_phase phase;
    fl_link link;
    uint64_t handshake_deadline_ms;

    bool welcomed;
    flowd_welcome welcome;
    char *server, *app;
    uint64_t next_nonce;
    fw_buffer provided; /* ProvideDisplays asked for before the Welcome, sent with it (size 0: none) */
    bool has_provided;

    bool dispatching; /* inside flowd_display_dispatch: sends leave the flush to its end */
    flowd_end end;
};

#define CALL(display, callback, ...)                                                               \
    do {                                                                                           \
        if ((display)->options.callbacks.callback)                                                 \
            (display)->options.callbacks.callback((display), __VA_ARGS__, (display)->options.user); \
    } while (0)

/* ---- Starting ------------------------------------------------------------------------------------ */

void flowd_display_options_init(flowd_display_options *options) {
    *options = (flowd_display_options){.name = "libflowd-screen display", .handshake_timeout_ms = 5000};
}

static flowd_display *new_display(const flowd_display_options *options, flowd_error *error) {
    if (!options) {
        fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "no options (flowd_display_options_init fills them in)");
        return NULL;
    }
    if (options->max_frame_size > 0 && options->max_frame_size < FW_MIN_MAX_FRAME) {
        fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "max_frame_size %u is under 4096, which flowd refuses",
                options->max_frame_size);
        return NULL;
    }
    flowd_display *display = calloc(1, sizeof *display);
    if (!display) {
        fl_fail(error, FLOWD_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    display->options = *options;
    display->options.name = NULL;
    display->options.socket_path = NULL;
    if (display->options.handshake_timeout_ms == 0) display->options.handshake_timeout_ms = 5000;
    display->link.fd = -1;
    display->link.max_frame = FW_DEFAULT_MAX_FRAME;
    if (!(display->name = strdup(options->name ? options->name : "libflowd-screen display"))) {
        flowd_display_free(display);
        fl_fail(error, FLOWD_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    return display;
}

static void begin_handshake(flowd_display *display, int fd) {
    fl_open(&display->link, fd);
    display->phase = DISPLAY_HANDSHAKE;
    display->handshake_deadline_ms = fl_now_ms() + display->options.handshake_timeout_ms;
    fw_hello hello = {.role = FW_ROLE_DISPLAY, .name = display->name, .max_frame_size = display->options.max_frame_size};
    fl_send_hello(&display->link, &hello);
    fl_flush(&display->link);
}

flowd_display *flowd_display_connect(const flowd_display_options *options, flowd_error *error) {
    flowd_display *display = new_display(options, error);
    if (!display) return NULL;
    char path[512];
    if (options->socket_path) {
        display->socket_path = strdup(options->socket_path);
    } else if (fl_default_socket_path(path, sizeof path) == 0) {
        display->socket_path = strdup(path);
    } else {
        flowd_display_free(display);
        fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "the socket path from the environment is too long");
        return NULL;
    }
    if (!display->socket_path) {
        flowd_display_free(display);
        fl_fail(error, FLOWD_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    int fd = fl_connect_socket(display->socket_path, error); /* refuses another user's socket (section 1) */
    if (fd < 0) {
        flowd_display_free(display);
        return NULL;
    }
    begin_handshake(display, fd);
    return display;
}

flowd_display *fl_display_on_fd(const flowd_display_options *options, int fd, flowd_error *error) {
    flowd_display *display = new_display(options, error);
    if (!display) {
        close(fd);
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    begin_handshake(display, fd);
    return display;
}

void flowd_display_free(flowd_display *display) {
    if (!display) return;
    fl_free(&display->link);
    free(display->name);
    free(display->socket_path);
    free(display->server);
    free(display->app);
    fw_buffer_free(&display->provided);
    free(display);
}

/* ---- Ending -------------------------------------------------------------------------------------- */

static void end(flowd_display *display, int reason) {
    if (display->phase == DISPLAY_ENDED) return;
    fl_flush(&display->link); /* a last Error or Shutdown of ours */
    fl_close(&display->link);
    display->phase = DISPLAY_ENDED;
    display->end.reason = reason;
}

static void end_with_error(flowd_display *display, int code, const char *format, ...) __attribute__((format(printf, 3, 4)));
static void end_with_error(flowd_display *display, int code, const char *format, ...) {
    if (display->phase == DISPLAY_ENDED) return;
    display->end.error = (flowd_error){.code = code, .fatal = true};
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(display->end.error.message, sizeof display->end.error.message, format, arguments);
    va_end(arguments);
    end(display, FLOWD_END_ERROR);
}

/* flowd sent what a display cannot take: say so with a fatal Error, as flowd does, and end. */
static void protocol_error(flowd_display *display, int code, const char *why, uint64_t reply_to) {
    fl_send_fatal_error(&display->link, code, why, reply_to);
    end_with_error(display, code, "flowd sent %s", why);
}

/* The connection broke or closed: before Welcome an error, after it the end the caller reconnects
 * from. end.error says what closed it, for the caller's log. */
static void lost(flowd_display *display, int code, const char *why) {
    if (display->phase == DISPLAY_HANDSHAKE) {
        end_with_error(display, FLOWD_ERROR_NO_WELCOME, "flowd closed the connection before Welcome (%s)", why);
        return;
    }
    display->end.error = (flowd_error){.code = code};
    snprintf(display->end.error.message, sizeof display->end.error.message, "%s", why);
    end(display, FLOWD_END_CONNECTION_CLOSED);
}

void flowd_display_stop(flowd_display *display) {
    if (!display || display->phase == DISPLAY_ENDED) return;
    if (display->phase == DISPLAY_READY) fl_send_shutdown(&display->link, "the display stopped");
    end(display, FLOWD_END_STOPPED);
}

/* ---- What flowd sends ---------------------------------------------------------------------------- */

static void keep_string(char **into, const char *value) {
    char *copy = strdup(value ? value : "");
    if (!copy) return; /* keeps the old one: only names for people */
    free(*into);
    *into = copy;
}

static void welcomed(flowd_display *display, const fw_welcome *message) {
    keep_string(&display->server, message->welcome.server);
    keep_string(&display->app, message->welcome.app);
    display->welcome = message->welcome;
    display->welcome.server = display->server ? display->server : "";
    display->welcome.app = display->app ? display->app : "";
    display->welcome.resumed = false;
    display->welcome.spawned = false;
    display->link.max_frame = fl_agreed_max_frame(display->options.max_frame_size, message->welcome.max_frame_size);
    display->welcomed = true;
    display->phase = DISPLAY_READY;
    if (display->has_provided) {
        display->has_provided = false;
        fw_buffer provided = display->provided;
        display->provided = (fw_buffer){0};
        fl_send(&display->link, FW_PROVIDE_DISPLAYS, &provided, 0, NULL);
        fw_buffer_free(&provided);
    }
    CALL(display, welcomed, &display->welcome);
}

static void flowd_error_received(flowd_display *display, const flowd_error *error) {
    if (error->fatal) {
        display->end.error = *error;
        end(display, FLOWD_END_ERROR);
        return;
    }
    CALL(display, error, error);
}

static void handle(flowd_display *display, const fw_envelope *envelope) {
    char why[256];
    fw_arena *arena = &display->link.arena;
    if (display->phase == DISPLAY_HANDSHAKE && envelope->body_field != FW_WELCOME && envelope->body_field != FW_ERROR) {
        snprintf(why, sizeof why, "body %u before Welcome", envelope->body_field);
        protocol_error(display, FLOWD_ERROR_UNEXPECTED_MESSAGE, why, envelope->seq);
        return;
    }
    switch (envelope->body_field) {
    case FW_WELCOME: {
        if (display->phase != DISPLAY_HANDSHAKE) break; /* a second Welcome: unexpected, below */
        fw_welcome welcome;
        if (fw_decode_welcome(envelope->body, arena, &welcome, why, sizeof why) < 0) goto malformed;
        welcomed(display, &welcome);
        return;
    }
    case FW_DISPLAY_SCENE: {
        flowd_scene scene;
        if (fw_decode_display_scene(envelope->body, arena, &scene, why, sizeof why) < 0) goto malformed;
        CALL(display, scene, &scene);
        return;
    }
    case FW_ERROR: {
        flowd_error error;
        if (fw_decode_error(envelope->body, arena, &error, why, sizeof why) < 0) goto malformed;
        flowd_error_received(display, &error);
        return;
    }
    case FW_PING: {
        uint64_t nonce;
        if (fw_decode_nonce(envelope->body, &nonce, why, sizeof why) < 0) goto malformed;
        fl_send_pong(&display->link, nonce, envelope->seq);
        return;
    }
    case FW_PONG: {
        uint64_t nonce;
        if (fw_decode_nonce(envelope->body, &nonce, why, sizeof why) < 0) goto malformed;
        CALL(display, pong, nonce); /* a display pings only when asked: every Pong is the caller's */
        return;
    }
    case FW_SHUTDOWN: {
        fw_shutdown shutdown;
        if (fw_decode_shutdown(envelope->body, arena, &shutdown, why, sizeof why) < 0) goto malformed;
        display->end.shutdown_reason = shutdown.reason;
        snprintf(display->end.shutdown_message, sizeof display->end.shutdown_message, "%s", shutdown.message);
        end(display, FLOWD_END_SHUTDOWN);
        return;
    }
    default:
        break;
    }
    snprintf(why, sizeof why, "body %u, which flowd never sends a display", envelope->body_field);
    protocol_error(display, FLOWD_ERROR_UNEXPECTED_MESSAGE, why, envelope->seq);
    return;
malformed: /* a body that did not decode */
    protocol_error(display, FLOWD_ERROR_MALFORMED_FRAME, why, envelope->seq);
}

/* ---- The event loop's side ----------------------------------------------------------------------- */

static void handle_frames(flowd_display *display) {
    char why[256];
    while (display->phase != DISPLAY_ENDED) {
        fw_envelope envelope;
        int code;
        int got = fl_next_envelope(&display->link, &envelope, &code, why, sizeof why);
        if (got == 0) break;
        if (got < 0)
            protocol_error(display, code, why, envelope.seq);
        else
            handle(display, &envelope);
        fw_arena_reset(&display->link.arena);
    }
}

int flowd_display_dispatch(flowd_display *display) {
    if (!display) return 1;
    if (display->phase == DISPLAY_ENDED) return 1;
    display->dispatching = true; /* sends from callbacks wait for the flush at the end: one write */
    fl_flush(&display->link);
    char why[256];
    /* A bounded number of reads, so that a busy connection cannot keep the loop to itself. Read even
     * when a write failed: a fatal Error flowd sent before closing says why. */
    for (int reads = 0; reads < 16 && display->phase != DISPLAY_ENDED; reads++) {
        int got = fl_read_some(&display->link, why, sizeof why);
        if (got < 0) {
            lost(display, strcmp(why, FL_END_OF_STREAM) ? FLOWD_ERROR_IO : FLOWD_ERROR_CLOSED, why);
            break;
        }
        if (got == 0) break;
        handle_frames(display);
        if (got == 2) break; /* a short read: the next poll says when there is more */
    }
    if (display->phase != DISPLAY_ENDED && display->link.broken) lost(display, FLOWD_ERROR_IO, "write failed");
    if (display->phase == DISPLAY_HANDSHAKE && fl_now_ms() >= display->handshake_deadline_ms)
        end_with_error(display, FLOWD_ERROR_NO_WELCOME, "no Welcome within %u ms", display->options.handshake_timeout_ms);
    fl_flush(&display->link);
    display->dispatching = false;
    return display->phase == DISPLAY_ENDED;
}

int flowd_display_fd(const flowd_display *display) {
    return display && display->phase != DISPLAY_ENDED ? display->link.fd : -1;
}

short flowd_display_events(const flowd_display *display) {
    if (!display || display->link.fd < 0 || display->phase == DISPLAY_ENDED) return 0;
    return (short)(POLLIN | (fl_writing(&display->link) ? POLLOUT : 0));
}

int flowd_display_timeout_ms(const flowd_display *display) {
    if (!display || display->phase != DISPLAY_HANDSHAKE) return -1;
    uint64_t now = fl_now_ms();
    if (display->handshake_deadline_ms <= now) return 0;
    uint64_t left = display->handshake_deadline_ms - now;
    return left > INT32_MAX ? INT32_MAX : (int)left;
}

const flowd_end *flowd_display_end(const flowd_display *display) {
    static const flowd_end none = {0};
    return display ? &display->end : &none;
}

const flowd_welcome *flowd_display_welcome(const flowd_display *display) {
    return display && display->welcomed ? &display->welcome : NULL;
}

/* ---- What a display sends ------------------------------------------------------------------------ */

static int check_ready(const flowd_display *display, flowd_error *error) {
    if (display->phase != DISPLAY_READY)
        return fl_fail(error, FLOWD_ERROR_CLOSED, display->phase == DISPLAY_ENDED ? "the display has ended"
                                                                                  : "flowd has not welcomed this display yet");
    return 0;
}

/* Queues `body` (freed here) and writes it at once, or at the end of the dispatch it is sent from. */
static int send_body(flowd_display *display, uint32_t body_field, fw_buffer *body, flowd_error *error) {
    int sent = fl_send(&display->link, body_field, body, 0, error);
    fw_buffer_free(body);
    if (!display->dispatching) fl_flush(&display->link);
    return sent;
}

/* UserNavigation without a key: a display sends nothing again after a drop, so there is nothing to
 * deduplicate (docs/protocol.md section 20). */
static int navigate(flowd_display *display, uint64_t screen_id, uint32_t action, uint64_t value, flowd_error *error) {
    if (screen_id == 0) return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "screen 0 is no screen");
    if (check_ready(display, error) < 0) return -1;
    fw_buffer navigation = {0};
    fw_encode_navigation(&navigation, screen_id, action, value, 0);
    return send_body(display, FW_USER_NAVIGATION, &navigation, error);
}

int flowd_display_back(flowd_display *display, uint64_t screen_id, flowd_phase phase, flowd_error *error) {
    if (!display) return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "no display");
    if (fl_check_phase(phase, error) < 0) return -1;
    return navigate(display, screen_id, FW_NAVIGATION_BACK, (uint64_t)phase, error);
}

int flowd_display_close_modal(flowd_display *display, uint64_t screen_id, flowd_phase phase, flowd_error *error) {
    if (!display) return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "no display");
    if (fl_check_phase(phase, error) < 0) return -1;
    return navigate(display, screen_id, FW_NAVIGATION_CLOSE_MODAL, (uint64_t)phase, error);
}

int flowd_display_close_window(flowd_display *display, uint64_t screen_id, flowd_phase phase, flowd_error *error) {
    if (!display) return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "no display");
    if (fl_check_phase(phase, error) < 0) return -1;
    return navigate(display, screen_id, FW_NAVIGATION_CLOSE_WINDOW, (uint64_t)phase, error);
}

int flowd_display_select_tab(flowd_display *display, uint64_t screen_id, uint32_t index, flowd_error *error) {
    if (!display) return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "no display");
    return navigate(display, screen_id, FW_NAVIGATION_SELECT_TAB, index, error);
}

int flowd_display_provide(flowd_display *display, const flowd_provided_display *displays, size_t count, flowd_error *error) {
    if (!display) return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "no display");
    if (display->phase == DISPLAY_ENDED) return fl_fail(error, FLOWD_ERROR_CLOSED, "the display has ended");
    if (count > FLOWD_MAX_PROVIDED_DISPLAYS)
        return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "%zu displays; flowd takes at most %d", count, FLOWD_MAX_PROVIDED_DISPLAYS);
    if (count > 0 && !displays) return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "no displays array");
    for (size_t i = 0; i < count; i++) {
        const char *id = displays[i].id, *name = displays[i].name ? displays[i].name : "";
        size_t length = id ? strlen(id) : 0;
        if (length == 0 || length > FLOWD_MAX_DISPLAY_ID)
            return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "display %zu: an id must be 1 to %d bytes", i, FLOWD_MAX_DISPLAY_ID);
        if (strlen(name) > FLOWD_MAX_DISPLAY_ID)
            return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "display '%s': a name must be at most %d bytes", id, FLOWD_MAX_DISPLAY_ID);
        for (size_t j = 0; j < i; j++)
            if (strcmp(displays[j].id, id) == 0)
                return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "the display '%s' is listed twice", id);
    }
    fw_buffer body = {0};
    for (size_t i = 0; i < count; i++) {
        fw_buffer one = {0};
        fw_put_string_field(&one, 1, displays[i].id);
        fw_put_string_field(&one, 2, displays[i].name ? displays[i].name : "");
        fw_put_varint_field(&one, 3, displays[i].width);
        fw_put_varint_field(&one, 4, displays[i].height);
        fw_put_message_field(&body, 1, &one);
        fw_buffer_free(&one);
    }
    if (body.failed) {
        fw_buffer_free(&body);
        return fl_fail(error, FLOWD_ERROR_NO_MEMORY, "out of memory");
    }
    if (display->phase != DISPLAY_READY) { /* sent with the Welcome */
        fw_buffer_free(&display->provided);
        display->provided = body;
        display->has_provided = true;
        return 0;
    }
    return send_body(display, FW_PROVIDE_DISPLAYS, &body, error);
}

int flowd_display_ping(flowd_display *display, uint64_t *nonce, flowd_error *error) {
    if (!display) return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "no display");
    if (check_ready(display, error) < 0) return -1;
    uint64_t value = display->next_nonce + 1;
    fw_buffer ping = {0};
    fw_put_varint_field(&ping, 1, value);
    if (send_body(display, FW_PING, &ping, error) < 0) return -1;
    display->next_nonce = value;
    if (nonce) *nonce = value;
    return 0;
}
