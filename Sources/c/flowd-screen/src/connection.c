/* Frames in and out of the one connection, the handshake, what each frame from flowd does, and
 * reconnecting with the resume token after a drop (docs/protocol.md sections 4, 10, 11, 19). */
#include "host.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALL(host, callback, ...)                                                                  \
    do {                                                                                           \
        if ((host)->options.callbacks.callback)                                                    \
            (host)->options.callbacks.callback((host), __VA_ARGS__, (host)->options.user);         \
    } while (0)

/* ---- Writing -------------------------------------------------------------------------------- */

void fh_flush(flowd_screen_host *host) {
    fl_flush(&host->link);
}

void fh_flush_unless_dispatching(flowd_screen_host *host) {
    if (!host->dispatching) fh_flush(host);
}

int fh_send(flowd_screen_host *host, uint32_t body_field, const fw_buffer *body, uint64_t reply_to, flowd_error *error) {
    if (host->link.fd < 0 || host->phase == FH_ENDED || host->phase == FH_WAITING)
        return fl_fail(error, FLOWD_ERROR_CLOSED, host->phase == FH_ENDED ? "the host has ended" : "reconnecting to flowd");
    /* Written by fh_flush: the caller's, or the dispatch's at its end. */
    return fl_send(&host->link, body_field, body, reply_to, error);
}

static void send_hello(flowd_screen_host *host) {
    fw_hello hello = {
        .role = FW_ROLE_SCREEN_HOST,
        .token = host->token,
        .name = host->name,
        .provides = host->spawned ? NULL : host->provides,
        .provides_count = host->spawned ? 0 : host->provides_count,
        .max_frame_size = host->options.max_frame_size,
        .resume_token = host->reconnecting ? host->resume_token : NULL,
    };
    fl_send_hello(&host->link, &hello);
}

void fh_begin_handshake(flowd_screen_host *host, int fd) {
    fl_open(&host->link, fd);
    host->phase = FH_HANDSHAKE;
    host->handshake_deadline_ms = fl_now_ms() + host->options.handshake_timeout_ms;
    if (host->reconnecting && host->handshake_deadline_ms > host->give_up_at_ms) host->handshake_deadline_ms = host->give_up_at_ms;
    send_hello(host);
    fh_flush(host);
}

/* ---- Ending --------------------------------------------------------------------------------- */

static void close_connection(flowd_screen_host *host) {
    fl_close(&host->link); /* sizes only: a callback may still hold pointers into the frame being handled */
    host->mark_count = 0;  /* no Pong of this connection will come */
}

/* Tells every screen it is gone, newest first, without acks. */
static void forget_screens(flowd_screen_host *host, int reason) {
    while (host->screen_count) {
        size_t newest = 0;
        for (size_t i = 1; i < host->screen_count; i++)
            if (host->screens[i].id > host->screens[newest].id) newest = i;
        flowd_dismiss gone = {.screen_id = host->screens[newest].id, .reason = reason};
        fh_remove_screen(host, gone.screen_id);
        CALL(host, dismissed, &gone);
    }
}

static void end(flowd_screen_host *host, int reason) {
    if (host->phase == FH_ENDED) return;
    fh_flush(host); /* a last Error or Shutdown of ours */
    close_connection(host);
    host->phase = FH_ENDED;
    host->reconnecting = false;
    host->end.reason = reason;
    if (reason != FLOWD_END_STOPPED) forget_screens(host, FLOWD_DISMISS_CONNECTION_LOST);
}

void fh_end_with_error(flowd_screen_host *host, int code, const char *format, ...) {
    if (host->phase == FH_ENDED) return;
    host->end.error = (flowd_error){.code = code, .fatal = true};
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(host->end.error.message, sizeof host->end.error.message, format, arguments);
    va_end(arguments);
    end(host, FLOWD_END_ERROR);
}

/* flowd sent what this side cannot take: say so with a fatal Error, as flowd does, and end. */
static void protocol_error(flowd_screen_host *host, int code, const char *why, uint64_t reply_to) {
    fl_send_fatal_error(&host->link, code, why, reply_to);
    fh_end_with_error(host, code, "flowd sent %s", why);
}

void flowd_screen_stop(flowd_screen_host *host) {
    if (!host || host->phase == FH_ENDED) return;
    if (host->phase == FH_READY) fl_send_shutdown(&host->link, "the host stopped");
    end(host, FLOWD_END_STOPPED);
}

/* ---- Reconnecting --------------------------------------------------------------------------- */

static void connection_event(flowd_screen_host *host, flowd_connection_event event, const char *format, ...) {
    char text[512];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(text, sizeof text, format, arguments);
    va_end(arguments);
    event.text = text;
    event.attempts = host->attempts;
    CALL(host, connection, &event);
}

/* The connection is gone (end of stream, a reset, Shutdown(HUNG)). A host that can resume starts
 * reconnecting; otherwise it ends. */
static void dropped(flowd_screen_host *host, const char *why, bool hung) {
    close_connection(host);
    bool can_resume = !host->spawned && host->options.reconnect && host->resume_token && *host->resume_token;
    if (!can_resume) {
        if (hung) host->end.shutdown_reason = FLOWD_SHUTDOWN_HUNG;
        end(host, hung ? FLOWD_END_SHUTDOWN : FLOWD_END_CONNECTION_CLOSED);
        return;
    }
    uint64_t now = fl_now_ms();
    host->reconnecting = true;
    host->attempts = 0;
    host->delay_ms = host->options.reconnect_initial_ms;
    uint64_t limit = host->options.give_up_after_ms >= 0 ? (uint64_t)host->options.give_up_after_ms
                                                         : (uint64_t)host->welcome.resume_grace_ms + 1000;
    host->give_up_at_ms = now + limit;
    host->next_try_ms = now + host->delay_ms;
    host->phase = FH_WAITING;
    connection_event(host, (flowd_connection_event){.kind = FLOWD_CONNECTION_DROPPED, .screens = host->screen_count},
                     "connection to flowd lost (%s) with %zu screen(s); reconnecting to %s to resume", why,
                     host->screen_count, host->socket_path);
}

/* A try failed: another after the next delay, or give up. */
static void try_failed(flowd_screen_host *host, const char *why) {
    close_connection(host);
    uint64_t now = fl_now_ms();
    if (now >= host->give_up_at_ms) {
        connection_event(host, (flowd_connection_event){.kind = FLOWD_CONNECTION_GAVE_UP},
                         "gave up reconnecting to flowd after %u tr%s; last: %s", host->attempts,
                         host->attempts == 1 ? "y" : "ies", why);
        end(host, FLOWD_END_CONNECTION_CLOSED);
        return;
    }
    host->delay_ms = host->delay_ms * 2 > host->options.reconnect_max_ms ? host->options.reconnect_max_ms : host->delay_ms * 2;
    host->next_try_ms = now + host->delay_ms < host->give_up_at_ms ? now + host->delay_ms : host->give_up_at_ms;
    host->phase = FH_WAITING;
}

static void try_reconnect(flowd_screen_host *host) {
    host->attempts++;
    flowd_error error;
    int fd = fl_connect_socket(host->socket_path, &error);
    if (fd < 0 && error.code == FLOWD_ERROR_UNTRUSTED_SERVER) { /* refused again the next time */
        fh_end_with_error(host, error.code, "%s", error.message);
        return;
    }
    if (fd < 0) {
        try_failed(host, error.message);
        return;
    }
    fh_begin_handshake(host, fd);
}

/* ---- What flowd sends ----------------------------------------------------------------------- */

static void keep_string(char **into, const char *value) {
    char *copy = strdup(value ? value : "");
    if (!copy) return; /* keeps the old one: only names for people */
    free(*into);
    *into = copy;
}

static void welcomed(flowd_screen_host *host, const fw_welcome *message) {
    keep_string(&host->server, message->welcome.server);
    keep_string(&host->app, message->welcome.app);
    keep_string(&host->resume_token, message->resume_token);
    host->welcome = message->welcome;
    host->welcome.server = host->server ? host->server : "";
    host->welcome.app = host->app ? host->app : "";
    host->welcome.spawned = host->spawned;
    host->link.max_frame = fl_agreed_max_frame(host->options.max_frame_size, message->welcome.max_frame_size);
    host->welcomed = true;
    host->phase = FH_READY;
    if (!host->reconnecting) {
        CALL(host, welcomed, &host->welcome);
        return;
    }
    host->reconnecting = false;
    bool resumed = message->welcome.resumed;
    if (!resumed) fh_clear_saved(host); /* a fresh start: flowd's saved states are the screens' now */
    /* First what waited, in the order first sent, before any callback can send something newer
     * (section 20): the last saved states, then the unconfirmed inputs, then a Ping whose Pong says
     * every Place of the resume has arrived (the saved states of screens not placed again go then). */
    for (size_t i = 0; i < host->saved_count; i++) {
        fw_buffer save = {0};
        fw_put_varint_field(&save, 1, host->saved[i].id);
        fw_put_bytes_field(&save, 2, host->saved[i].data, host->saved[i].size);
        fh_send(host, FW_SAVE_STATE, &save, 0, NULL);
        fw_buffer_free(&save);
    }
    size_t resent = fh_resend_inputs(host);
    host->resume_nonce = 0;
    if (resumed && host->saved_count) fh_send_ping(host, false, &host->resume_nonce, NULL);
    /* The old connection's screens: a resumed one gets a Place with its id next, if it still exists. */
    forget_screens(host, resumed ? FLOWD_DISMISS_RESUMED : FLOWD_DISMISS_CONNECTION_LOST);
    if (host->phase != FH_READY) return; /* a callback stopped the host */
    connection_event(host, (flowd_connection_event){.kind = FLOWD_CONNECTION_RECONNECTED, .resumed = resumed},
                     "reconnected to flowd as connection %llu after %u tr%s; %s",
                     (unsigned long long)message->welcome.connection_id, host->attempts, host->attempts == 1 ? "y" : "ies",
                     resumed ? "resumed, its screens follow" : "a fresh start");
    if (host->phase != FH_READY) return;
    if (resent)
        connection_event(host, (flowd_connection_event){.kind = FLOWD_CONNECTION_RESENT, .inputs = resent},
                         "sent again %zu input(s) flowd had not confirmed; it applies each once", resent);
    if (host->phase != FH_READY) return;
    CALL(host, welcomed, &host->welcome);
}

/* A command's callback, then its ack unless the host acks by hand. */
static void acked_after(flowd_screen_host *host, uint64_t screen_id, uint64_t serial) {
    bool ack = !host->options.manual_acks && !host->defer_ack;
    host->in_command = false;
    host->defer_ack = false;
    if (ack && host->phase == FH_READY) fh_ack(host, screen_id, serial, NULL);
}

static void handle_error(flowd_screen_host *host, const flowd_error *error) {
    if (error->fatal) {
        host->end.error = *error;
        end(host, FLOWD_END_ERROR);
        return;
    }
    CALL(host, error, error);
    if (error->code == FLOWD_ERROR_ACK_TIMEOUT && host->phase == FH_READY && fh_find_screen(host, error->screen_id)) {
        /* flowd removed the screen by force: drop it too, without an ack (section 6). */
        flowd_dismiss gone = {.screen_id = error->screen_id, .reason = FLOWD_DISMISS_ACK_TIMEOUT};
        fh_remove_screen(host, gone.screen_id);
        fh_remove_saved(host, gone.screen_id);
        CALL(host, dismissed, &gone);
    }
}

static void handle_shutdown(flowd_screen_host *host, const fw_shutdown *shutdown) {
    if (shutdown->reason == FLOWD_SHUTDOWN_HUNG) {
        dropped(host, "hung", true);
        return;
    }
    host->end.shutdown_reason = shutdown->reason;
    snprintf(host->end.shutdown_message, sizeof host->end.shutdown_message, "%s", shutdown->message);
    end(host, host->spawned && shutdown->reason == FLOWD_SHUTDOWN_SCREEN_DISMISSED ? FLOWD_END_SCREEN_DISMISSED
                                                                                  : FLOWD_END_SHUTDOWN);
}

/* Before Welcome: a Welcome, or a fatal Error. */
static void handle_handshake(flowd_screen_host *host, const fw_envelope *envelope, char *why, size_t why_size) {
    if (envelope->body_field == FW_WELCOME) {
        fw_welcome welcome;
        if (fw_decode_welcome(envelope->body, &host->link.arena, &welcome, why, why_size) < 0)
            protocol_error(host, FLOWD_ERROR_MALFORMED_FRAME, why, envelope->seq);
        else
            welcomed(host, &welcome);
        return;
    }
    if (envelope->body_field == FW_ERROR) {
        flowd_error error;
        if (fw_decode_error(envelope->body, &host->link.arena, &error, why, why_size) < 0) {
            protocol_error(host, FLOWD_ERROR_MALFORMED_FRAME, why, envelope->seq);
        } else if (error.code == FLOWD_ERROR_RESUME_REFUSED && host->reconnecting) {
            /* The old screens are gone: tell the host, and connect again at once without a token. */
            free(host->resume_token);
            host->resume_token = NULL;
            close_connection(host);
            fh_clear_saved(host);
            host->phase = FH_WAITING; /* before the callbacks: one may stop the host */
            host->next_try_ms = fl_now_ms();
            forget_screens(host, FLOWD_DISMISS_CONNECTION_LOST);
            if (host->phase == FH_ENDED) return;
            connection_event(host, (flowd_connection_event){.kind = FLOWD_CONNECTION_RESUME_REFUSED},
                             "flowd refused to resume (%s); dropping the old screens and connecting again as a new host (flowd places the screens that wait for its kinds)",
                             error.message);
        } else if (error.fatal) {
            handle_error(host, &error);
        } else {
            CALL(host, error, &error);
        }
        return;
    }
    snprintf(why, why_size, "body %u before Welcome", envelope->body_field);
    protocol_error(host, FLOWD_ERROR_UNEXPECTED_MESSAGE, why, envelope->seq);
}

static void handle(flowd_screen_host *host, const fw_envelope *envelope) {
    char why[256];
    if (host->phase == FH_HANDSHAKE) {
        handle_handshake(host, envelope, why, sizeof why);
        return;
    }
    switch (envelope->body_field) {
    case FW_PLACE: {
        flowd_place place;
        if (fw_decode_place(envelope->body, &host->link.arena, &place, why, sizeof why) < 0) break;
        if (!fh_add_screen(host, place.screen_id)) {
            fh_end_with_error(host, FLOWD_ERROR_NO_MEMORY, "out of memory for screen %llu", (unsigned long long)place.screen_id);
            return;
        }
        fh_saved *saved = fh_find_saved(host, place.screen_id);
        if (saved) { /* ours is the newest (section 19); a copy: the callback may save again */
            uint8_t *copy = fw_arena_alloc(&host->link.arena, saved->size);
            if (!copy) {
                fh_end_with_error(host, FLOWD_ERROR_NO_MEMORY, "out of memory for screen %llu", (unsigned long long)place.screen_id);
                return;
            }
            if (saved->size) memcpy(copy, saved->data, saved->size);
            place.saved_state = copy;
            place.saved_state_size = saved->size;
        }
        host->in_command = true;
        CALL(host, placed, &place);
        acked_after(host, place.screen_id, place.serial);
        return;
    }
    case FW_UPDATE: {
        flowd_update update;
        if (fw_decode_update(envelope->body, &host->link.arena, &update, why, sizeof why) < 0) break;
        host->in_command = true;
        CALL(host, updated, &update);
        acked_after(host, update.screen_id, update.serial);
        return;
    }
    case FW_PLACEMENT_CHANGED: {
        flowd_placement_changed change;
        if (fw_decode_placement_changed(envelope->body, &host->link.arena, &change, why, sizeof why) < 0) break;
        host->in_command = true;
        CALL(host, placement_changed, &change);
        acked_after(host, change.screen_id, change.serial);
        return;
    }
    case FW_DISMISS: {
        flowd_dismiss dismiss;
        if (fw_decode_dismiss(envelope->body, &dismiss, why, sizeof why) < 0) break;
        fh_remove_screen(host, dismiss.screen_id);
        fh_remove_saved(host, dismiss.screen_id);
        host->in_command = true;
        CALL(host, dismissed, &dismiss);
        acked_after(host, dismiss.screen_id, dismiss.serial);
        return;
    }
    case FW_ERROR: {
        flowd_error error;
        if (fw_decode_error(envelope->body, &host->link.arena, &error, why, sizeof why) < 0) break;
        handle_error(host, &error);
        return;
    }
    case FW_PING: {
        uint64_t nonce;
        if (fw_decode_nonce(envelope->body, &nonce, why, sizeof why) < 0) break;
        fl_send_pong(&host->link, nonce, envelope->seq);
        return;
    }
    case FW_PONG: {
        uint64_t nonce;
        if (fw_decode_nonce(envelope->body, &nonce, why, sizeof why) < 0) break;
        fh_pong(host, nonce);
        return;
    }
    case FW_SHUTDOWN: {
        fw_shutdown shutdown;
        if (fw_decode_shutdown(envelope->body, &host->link.arena, &shutdown, why, sizeof why) < 0) break;
        handle_shutdown(host, &shutdown);
        return;
    }
    case FW_LINK_OPENED: {
        flowd_link_opened opened;
        if (fw_decode_link_opened(envelope->body, &host->link.arena, &opened, why, sizeof why) < 0) break;
        CALL(host, link_opened, &opened);
        return;
    }
    default:
        snprintf(why, sizeof why, "body %u, which flowd never sends a screen host", envelope->body_field);
        protocol_error(host, FLOWD_ERROR_UNEXPECTED_MESSAGE, why, envelope->seq);
        return;
    }
    protocol_error(host, FLOWD_ERROR_MALFORMED_FRAME, why, envelope->seq); /* a body that did not decode */
}

/* ---- Reading -------------------------------------------------------------------------------- */

static void handle_frames(flowd_screen_host *host) {
    int fd = host->link.fd;
    char why[256];
    while (host->link.fd == fd && (host->phase == FH_HANDSHAKE || host->phase == FH_READY)) {
        fw_envelope envelope;
        int code;
        int got = fl_next_envelope(&host->link, &envelope, &code, why, sizeof why);
        if (got == 0) break;
        if (got < 0)
            protocol_error(host, code, why, envelope.seq);
        else
            handle(host, &envelope);
        fw_arena_reset(&host->link.arena);
    }
}

/* The connection broke: before Welcome a failed try (or, the first time, the end), after it a drop. */
static void lost(flowd_screen_host *host, const char *why) {
    if (host->phase == FH_HANDSHAKE) {
        if (host->reconnecting)
            try_failed(host, why);
        else
            fh_end_with_error(host, FLOWD_ERROR_NO_WELCOME, "flowd closed the connection before Welcome (%s)", why);
        return;
    }
    dropped(host, why, false);
}

int flowd_screen_dispatch(flowd_screen_host *host) {
    if (!host) return 1;
    host->dispatching = true; /* sends from callbacks wait for the flush at the end: one write */
    if (host->phase == FH_WAITING && fl_now_ms() >= host->next_try_ms) try_reconnect(host);
    if (host->phase == FH_HANDSHAKE || host->phase == FH_READY) {
        fh_flush(host);
        char why[256];
        /* A bounded number of reads, so that one busy connection cannot keep the loop to itself. */
        /* Read even when a write failed: a fatal Error flowd sent before closing says why. */
        for (int reads = 0; reads < 16 && host->link.fd >= 0; reads++) {
            int got = fl_read_some(&host->link, why, sizeof why);
            if (got < 0) {
                lost(host, why);
                break;
            }
            if (got == 0) break;
            handle_frames(host);
            if (got == 2) break; /* a short read: the next poll says when there is more (one recv saved) */
        }
        if (host->link.broken && host->link.fd >= 0) lost(host, "write failed");
        if (host->phase == FH_HANDSHAKE && fl_now_ms() >= host->handshake_deadline_ms) {
            snprintf(why, sizeof why, "no Welcome within %u ms", host->options.handshake_timeout_ms);
            if (host->reconnecting)
                try_failed(host, why);
            else
                fh_end_with_error(host, FLOWD_ERROR_NO_WELCOME, "%s", why);
        }
        fh_flush(host);
    }
    host->dispatching = false;
    return host->phase == FH_ENDED;
}
