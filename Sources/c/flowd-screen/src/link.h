/* One connection to flowd, as a screen host and a display both hold it (docs/protocol.md sections 1
 * to 4 and 10): finding and dialling the named socket and checking who serves it, the frames queued
 * to write, the bytes read and not yet handled, the sequence numbers, the negotiated frame size, and
 * the arena of the frame being handled. No policy: its owner decides what a frame does, when the
 * connection ends and what comes after. Internal to libflowd-screen. */
#ifndef FLOWD_SCREEN_LINK_H
#define FLOWD_SCREEN_LINK_H

#include "wire.h"

/* Past this many bytes waiting to be written, flowd is not reading: sends are refused. */
#define FL_MAX_WRITE_QUEUE (4u << 20)

typedef struct fl_link {
    int fd;            /* -1: none */
    bool broken;       /* a write failed: the owner's dispatch treats it as the end of the connection */
    uint64_t next_seq;
    uint32_t max_frame;
    fw_buffer in;
    size_t in_start;   /* the first byte of `in` not yet handled */
    fw_buffer out;
    size_t out_start;  /* the first byte of `out` not yet written */
    fw_arena arena;    /* what the frame being handled decoded to; reset after each frame */
} fl_link;

uint64_t fl_now_ms(void);
/* Fills in `error` (when not NULL) and returns -1. */
int fl_fail(flowd_error *error, int code, const char *format, ...) __attribute__((format(printf, 3, 4)));
/* 0, or -1 with INVALID_ARGUMENT when `phase` is not a flowd_phase (navigation checks it before sending). */
int fl_check_phase(flowd_phase phase, flowd_error *error);

/* The named socket's path (section 1): $FLOWD_SOCKET, $XDG_RUNTIME_DIR/flowd/flowd.sock or
 * /tmp/flowd-UID/flowd.sock, into `path`; -1 if it does not fit. */
int fl_default_socket_path(char *path, size_t size);
/* A connected, non-blocking socket to `path` served by our user or root, or -1 with `error`
 * (FLOWD_ERROR_UNTRUSTED_SERVER when another user serves it: nothing was sent). */
int fl_connect_socket(const char *path, flowd_error *error);

/* Starts a connection on `fd`: sequence numbers from 1, the default frame size, nothing read or queued. */
void fl_open(fl_link *link, int fd);
/* Closes the descriptor. Resets sizes only: a callback may still hold pointers into the frame being
 * handled, and the buffers serve the next connection. */
void fl_close(fl_link *link);
/* Closes and frees everything. */
void fl_free(fl_link *link);

/* Queues one frame; -1 (error filled in) if it cannot: no connection, out of memory, over the
 * negotiated frame size (flowd would end the connection with FRAME_TOO_LARGE), or flowd not reading.
 * Nothing is written until fl_flush. */
int fl_send(fl_link *link, uint32_t body_field, const fw_buffer *body, uint64_t reply_to, flowd_error *error);
/* Writes what the socket takes of the queued frames; the rest waits for POLLOUT. A failed write
 * sets `broken`. */
void fl_flush(fl_link *link);
/* Frames wait to be written (watch for POLLOUT). */
bool fl_writing(const fl_link *link);

/* What fl_read_some's `why` says at the end of the stream (flowd closed), as opposed to an error. */
#define FL_END_OF_STREAM "connection closed"

/* Reads into `in` without blocking. 1: bytes read, maybe more waiting; 2: bytes read, all there were
 * (a short read); 0: none now; -1: the end of the stream (`why` is FL_END_OF_STREAM), or an error
 * (`why`). */
int fl_read_some(fl_link *link, char *why, size_t why_size);
/* The next whole frame read, as an envelope. 1: `envelope` set (its strings go into `arena`, which
 * the caller resets once it handled the frame); 0: no whole frame yet; -1: the bytes are not
 * flowd's protocol: `code` is the Error to answer with (MALFORMED_FRAME, FRAME_TOO_LARGE), `why`
 * says what, and `envelope->seq` is the frame's seq when it got that far (else 0). */
int fl_next_envelope(fl_link *link, fw_envelope *envelope, int *code, char *why, size_t why_size);

/* The frame size for both directions once Welcome is in: the smaller of ours (0: the default) and
 * flowd's (0: the default; flowd's is never above ours, and one that says so is not trusted). */
uint32_t fl_agreed_max_frame(uint32_t ours, uint32_t theirs);

/* The small frames every role sends. */
void fl_send_hello(fl_link *link, const fw_hello *hello);
void fl_send_pong(fl_link *link, uint64_t nonce, uint64_t reply_to);
/* A fatal Error: this side will close after it (flowd sent what this side cannot take). */
void fl_send_fatal_error(fl_link *link, int code, const char *why, uint64_t reply_to);
void fl_send_shutdown(fl_link *link, const char *message);

#endif
