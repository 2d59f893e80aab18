// The baseline relay server: flowd's framing on bare libuv, no flow logic.
#include "CBenchRelay.h"

#include <uv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>

#define READ_BUFFER_SIZE (64 * 1024)
#define MAX_FRAME (1u << 20)

typedef struct connection {
    uv_pipe_t pipe;
    struct connection *peer;
    /// Bytes of a frame not yet complete (carried over between reads).
    uint8_t *partial;
    size_t partial_len, partial_cap;
    /// Complete frames collected during one read, written once at its end.
    uint8_t *out;
    size_t out_len, out_cap;
} connection;

typedef struct {
    uv_write_t request;
    uint8_t *bytes;
} write_request;

static uv_loop_t *loop;
static uv_pipe_t listener;
static uv_signal_t sigterm, sigint;
static cbr_mode server_mode;
static connection *unpaired;
static uint8_t read_buffer[READ_BUFFER_SIZE];

static void grow(uint8_t **buffer, size_t *cap, size_t need) {
    if (need <= *cap) return;
    size_t cap2 = *cap ? *cap : 4096;
    while (cap2 < need) cap2 *= 2;
    *buffer = realloc(*buffer, cap2);
    if (!*buffer) abort();
    *cap = cap2;
}

static void on_written(uv_write_t *request, int status) {
    (void)status;
    write_request *w = (write_request *)request;
    free(w->bytes);
    free(w);
}

/// Writes now what the kernel takes (uv_try_write), queues a copy of the rest.
static void send_bytes(connection *c, const uint8_t *bytes, size_t len) {
    if (len == 0 || uv_is_closing((uv_handle_t *)&c->pipe)) return;
    size_t done = 0;
    if (uv_stream_get_write_queue_size((uv_stream_t *)&c->pipe) == 0) {
        uv_buf_t b = uv_buf_init((char *)bytes, (unsigned)len);
        int n = uv_try_write((uv_stream_t *)&c->pipe, &b, 1);
        if (n > 0) done = (size_t)n;
    }
    if (done == len) return;
    write_request *w = malloc(sizeof *w);
    w->bytes = malloc(len - done);
    memcpy(w->bytes, bytes + done, len - done);
    uv_buf_t b = uv_buf_init((char *)w->bytes, (unsigned)(len - done));
    if (uv_write(&w->request, (uv_stream_t *)&c->pipe, &b, 1, on_written) != 0) {
        free(w->bytes);
        free(w);
    }
}

static void send_ready(connection *c) {
    static const uint8_t empty_frame[4] = {0, 0, 0, 0};
    send_bytes(c, empty_frame, sizeof empty_frame);
}

static void on_closed(uv_handle_t *handle) {
    connection *c = handle->data;
    free(c->partial);
    free(c->out);
    free(c);
}

static void close_connection(connection *c) {
    if (uv_is_closing((uv_handle_t *)&c->pipe)) return;
    if (c->peer) c->peer->peer = NULL;
    if (unpaired == c) unpaired = NULL;
    c->peer = NULL;
    uv_close((uv_handle_t *)&c->pipe, on_closed);
}

static void on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf) {
    (void)handle; (void)suggested;
    *buf = uv_buf_init((char *)read_buffer, READ_BUFFER_SIZE);
}

static uint32_t frame_length(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/// Appends the complete frames at the start of bytes[0..<len] to `target->out`;
/// returns how many bytes they took (the rest is a frame cut short), or -1 for a frame too large.
static long take_frames(connection *target, const uint8_t *bytes, size_t len) {
    size_t at = 0;
    while (len - at >= 4) {
        uint32_t body = frame_length(bytes + at);
        if (body > MAX_FRAME) return -1;
        if (len - at - 4 < body) break;
        at += 4 + body;
    }
    if (target && at > 0) {
        grow(&target->out, &target->out_cap, target->out_len + at);
        memcpy(target->out + target->out_len, bytes, at);
        target->out_len += at;
    }
    return (long)at;
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf) {
    connection *c = stream->data;
    if (nread < 0) { close_connection(c); return; }
    if (nread == 0) return;
    connection *target = server_mode == CBR_MODE_ECHO ? c : c->peer;
    const uint8_t *bytes = (const uint8_t *)buf->base;
    size_t len = (size_t)nread;
    if (c->partial_len > 0) {
        grow(&c->partial, &c->partial_cap, c->partial_len + len);
        memcpy(c->partial + c->partial_len, bytes, len);
        c->partial_len += len;
        bytes = c->partial;
        len = c->partial_len;
    }
    long taken = take_frames(target, bytes, len);
    if (taken < 0) { close_connection(c); return; }
    size_t rest = len - (size_t)taken;
    if (bytes == c->partial) {
        memmove(c->partial, c->partial + taken, rest);
        c->partial_len = rest;
    } else if (rest > 0) {
        grow(&c->partial, &c->partial_cap, rest);
        memcpy(c->partial, bytes + taken, rest);
        c->partial_len = rest;
    }
    if (target && target->out_len > 0) {
        send_bytes(target, target->out, target->out_len);
        target->out_len = 0;
    }
}

static void on_connection(uv_stream_t *server, int status) {
    if (status < 0) return;
    connection *c = calloc(1, sizeof *c);
    uv_pipe_init(loop, &c->pipe, 0);
    c->pipe.data = c;
    if (uv_accept(server, (uv_stream_t *)&c->pipe) != 0) {
        uv_close((uv_handle_t *)&c->pipe, on_closed);
        return;
    }
    uv_read_start((uv_stream_t *)&c->pipe, on_alloc, on_read);
    if (server_mode == CBR_MODE_ECHO) {
        send_ready(c);
    } else if (unpaired) {
        c->peer = unpaired;
        unpaired->peer = c;
        unpaired = NULL;
        send_ready(c->peer);
        send_ready(c);
    } else {
        unpaired = c;
    }
}

static void on_signal(uv_signal_t *handle, int signum) {
    (void)handle; (void)signum;
    uv_stop(loop);
}

int cbr_server_run(const char *path, cbr_mode mode, int ready_fd, char *error) {
    signal(SIGPIPE, SIG_IGN);
    server_mode = mode;
    loop = uv_default_loop();
    int rc;
    uv_pipe_init(loop, &listener, 0);
    unlink(path);
    if ((rc = uv_pipe_bind(&listener, path)) != 0) {
        snprintf(error, CBR_ERROR_SIZE, "cannot bind the baseline server to %s: %s; pick a writable directory", path, uv_strerror(rc));
        return -1;
    }
    if ((rc = uv_listen((uv_stream_t *)&listener, 4096, on_connection)) != 0) {
        snprintf(error, CBR_ERROR_SIZE, "cannot listen on %s: %s", path, uv_strerror(rc));
        return -1;
    }
    uv_signal_init(loop, &sigterm);
    uv_signal_start(&sigterm, on_signal, SIGTERM);
    uv_signal_init(loop, &sigint);
    uv_signal_start(&sigint, on_signal, SIGINT);
    if (ready_fd >= 0) {
        ssize_t ignored = write(ready_fd, "ready\n", 6);
        (void)ignored;
    }
    uv_run(loop, UV_RUN_DEFAULT);
    unlink(path);
    return 0;
}
