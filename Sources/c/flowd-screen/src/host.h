/* The host's state, shared by host.c (start, screens, the event loop's side), connection.c (frames
 * in and out, the handshake, resuming) and inputs.c (outputs, navigation, acks, keys). Internal. */
#ifndef FLOWD_SCREEN_HOST_H
#define FLOWD_SCREEN_HOST_H

#include "link.h"

typedef enum fh_phase {
    FH_HANDSHAKE = 0, /* Hello sent, waiting for Welcome */
    FH_READY = 1,     /* welcomed: commands, inputs */
    FH_WAITING = 2,   /* dropped; the next reconnect try is at next_try_ms */
    FH_ENDED = 3,
} fh_phase;

typedef struct fh_screen {
    uint64_t id;
} fh_screen;

/* The last SaveState sent for a screen: sent again after a resume, and handed to the screen's Place
 * then instead of flowd's copy, which may be older (docs/protocol.md section 19). */
typedef struct fh_saved {
    uint64_t id;
    uint8_t *data;
    size_t size;
} fh_saved;

/* An output or navigation sent and not yet confirmed by a Pong (docs/protocol.md section 20). */
typedef struct fh_input {
    uint64_t number;
    uint32_t body_field;
    fw_buffer body; /* encoded with its key */
} fh_input;

/* A Ping sent: its Pong confirms the inputs up to `last_input`. */
typedef struct fh_mark {
    uint64_t nonce;
    uint64_t last_input;
    bool asked; /* flowd_screen_ping's, reported to the `pong` callback */
} fh_mark;

#define FH_MAX_UNCONFIRMED 256
#define FH_MAX_MARKS 64

struct flowd_screen_host {
    flowd_screen_options options; /* name, provides and socket_path are the copies below */
    char *name;
    char **provides;
    size_t provides_count;
    char *socket_path;
    char *token;    /* spawned: FLOWD_TOKEN */
    bool spawned;

    fh_phase phase;
    fl_link link;   /* the current connection; a broken write is a drop */

    bool welcomed;
    flowd_welcome welcome;
    char *server, *app, *resume_token;
    uint64_t handshake_deadline_ms;

    fh_screen *screens;
    size_t screen_count, screen_capacity;
    fh_saved *saved;
    size_t saved_count, saved_capacity;

    fh_input inputs[FH_MAX_UNCONFIRMED];
    size_t input_count;
    uint64_t next_input;
    uint64_t key_base;
    fh_mark marks[FH_MAX_MARKS];
    size_t mark_count;
    uint64_t next_nonce;
    uint64_t resume_nonce; /* the Ping after a resume: at its Pong the saved states of screens not placed again go */

    bool reconnecting;
    unsigned attempts;
    uint32_t delay_ms;
    uint64_t next_try_ms, give_up_at_ms;

    bool dispatching; /* inside flowd_screen_dispatch: public sends leave the flush to its end */
    bool in_command;  /* inside a command's callback */
    bool defer_ack;

    flowd_end end;
};

fh_screen *fh_find_screen(flowd_screen_host *host, uint64_t id);
fh_screen *fh_add_screen(flowd_screen_host *host, uint64_t id);
void fh_remove_screen(flowd_screen_host *host, uint64_t id);
fh_saved *fh_find_saved(flowd_screen_host *host, uint64_t id);
void fh_remove_saved(flowd_screen_host *host, uint64_t id);
void fh_clear_saved(flowd_screen_host *host);

/* connection.c */
void fh_begin_handshake(flowd_screen_host *host, int fd);
/* Queues one frame (fl_send); -1 (error filled in) if the host cannot send. Nothing is written until
 * fh_flush: a public call flushes once at its end (an output and its Ping go in one write), and a
 * dispatch at its end (its acks and Pongs together). */
int fh_send(flowd_screen_host *host, uint32_t body_field, const fw_buffer *body, uint64_t reply_to, flowd_error *error);
/* Writes what the socket takes of the queued frames; the rest waits for POLLOUT. */
void fh_flush(flowd_screen_host *host);
/* A public call's flush: at once outside a dispatch; inside one (a callback), at its end, so that
 * an output sent from a callback leaves in the same write as the command's ack. */
void fh_flush_unless_dispatching(flowd_screen_host *host);
void fh_end_with_error(flowd_screen_host *host, int code, const char *format, ...) __attribute__((format(printf, 3, 4)));

/* inputs.c */
void fh_inputs_free(flowd_screen_host *host);
/* After a reconnect: the inputs no Pong confirmed, sent again with their keys, then a Ping. */
size_t fh_resend_inputs(flowd_screen_host *host);
void fh_pong(flowd_screen_host *host, uint64_t nonce);
int fh_ack(flowd_screen_host *host, uint64_t screen_id, uint64_t serial, flowd_error *error);
int fh_send_ping(flowd_screen_host *host, bool asked, uint64_t *nonce, flowd_error *error);

#endif
