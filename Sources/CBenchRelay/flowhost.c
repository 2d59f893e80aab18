// Screen-host drivers for flowd: a few protobuf fields encoded and decoded by
// hand (Hello, Output, Ack, Pong; Place/Update/PlacementChanged/Dismiss, Ping),
// so the clients of the flowd rows cost about as little as the baseline's. Every
// host answers the daemon's Ping (its hang watchdog) with a Pong.
#define _GNU_SOURCE
#include "CBenchRelay.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

// MARK: - Encoding

static size_t put_varint(uint8_t *out, uint64_t value) {
    size_t n = 0;
    while (value >= 0x80) { out[n++] = (uint8_t)(value | 0x80); value >>= 7; }
    out[n++] = (uint8_t)value;
    return n;
}

static size_t varint_size(uint64_t value) {
    size_t n = 1;
    while (value >= 0x80) { value >>= 7; n++; }
    return n;
}

static size_t put_key(uint8_t *out, uint32_t field, uint32_t wire) { return put_varint(out, (uint64_t)field << 3 | wire); }

static size_t put_bytes(uint8_t *out, uint32_t field, const void *bytes, size_t len) {
    size_t n = put_key(out, field, 2);
    n += put_varint(out + n, len);
    memcpy(out + n, bytes, len);
    return n + len;
}

/// Wraps `body` (already encoded message bytes) as envelope field `field` in a frame at `out`.
static size_t put_frame(uint8_t *out, uint32_t field, const uint8_t *body, size_t body_len) {
    uint8_t *envelope = out + 4;
    size_t n = put_bytes(envelope, field, body, body_len);
    out[0] = (uint8_t)n; out[1] = (uint8_t)(n >> 8); out[2] = (uint8_t)(n >> 16); out[3] = (uint8_t)(n >> 24);
    return n + 4;
}

size_t cbr_encode_hello(uint8_t *out, size_t capacity, const char *name, const char *provides, const char *token) {
    size_t need = 64 + strlen(name) + (provides ? strlen(provides) : 0) + (token ? strlen(token) : 0);
    if (capacity < need) return 0;
    uint8_t body[1024];
    if (need > sizeof body) return 0;
    size_t n = 0;
    n += put_key(body + n, 1, 0); n += put_varint(body + n, 1);   // min_version
    n += put_key(body + n, 2, 0); n += put_varint(body + n, 1);   // max_version
    n += put_key(body + n, 3, 0); n += put_varint(body + n, 1);   // ROLE_SCREEN_HOST
    if (token && *token) n += put_bytes(body + n, 4, token, strlen(token));
    n += put_bytes(body + n, 5, name, strlen(name));
    if (provides && *provides) n += put_bytes(body + n, 6, provides, strlen(provides));
    n += put_key(body + n, 8, 0); n += put_varint(body + n, (uint64_t)getpid());
    return put_frame(out, 10, body, n);
}

size_t cbr_encode_output(uint8_t *out, size_t capacity, uint64_t screen_id, const char *content_type,
                         const uint8_t *data, size_t data_len) {
    size_t type_len = strlen(content_type);
    if (capacity < type_len + data_len + 64 || type_len + data_len > 900) return 0;
    uint8_t payload[1024], body[1100];
    size_t p = put_bytes(payload, 1, content_type, type_len);
    p += put_bytes(payload + p, 2, data, data_len);
    size_t n = put_key(body, 1, 0);
    n += put_varint(body + n, screen_id);
    n += put_bytes(body + n, 2, payload, p);
    return put_frame(out, 30, body, n);
}

size_t cbr_encode_press(uint8_t *out, size_t capacity, uint64_t screen_id, uint32_t button) {
    // flowd.demo.v1.CardOutput { did_press_button (1) = DidPressButton { index (1) = button } }
    uint8_t press[16], output[24];
    size_t n = put_key(press, 1, 0);
    n += put_varint(press + n, button);
    size_t m = put_bytes(output, 1, press, n);
    return cbr_encode_output(out, capacity, screen_id, CBR_CARD_OUTPUT_CONTENT_TYPE, output, m);
}

size_t cbr_encode_ack(uint8_t *out, uint64_t screen_id, uint64_t serial) {
    uint8_t body[32];
    size_t n = put_key(body, 1, 0);
    n += put_varint(body + n, screen_id);
    n += put_key(body + n, 2, 0);
    n += put_varint(body + n, serial);
    (void)varint_size;
    return put_frame(out, 24, body, n);
}

size_t cbr_encode_pong(uint8_t *out, uint64_t nonce, uint64_t reply_to) {
    uint8_t body[16];
    size_t b = 0;
    if (nonce != 0) { b += put_key(body, 1, 0); b += put_varint(body + b, nonce); }
    uint8_t *envelope = out + 4;
    size_t n = 0;
    if (reply_to != 0) { n += put_key(envelope, 2, 0); n += put_varint(envelope + n, reply_to); }
    n += put_bytes(envelope + n, 14, body, b);
    out[0] = (uint8_t)n; out[1] = (uint8_t)(n >> 8); out[2] = (uint8_t)(n >> 16); out[3] = (uint8_t)(n >> 24);
    return n + 4;
}

// MARK: - Decoding

static int get_varint(const uint8_t *p, size_t len, size_t *at, uint64_t *value) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && *at < len; shift += 7) {
        uint8_t byte = p[(*at)++];
        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) { *value = v; return 0; }
    }
    return -1;
}

/// Skips a field of wire type `wire`; -1 if malformed.
static int skip_field(const uint8_t *p, size_t len, size_t *at, uint32_t wire) {
    uint64_t v;
    switch (wire) {
    case 0: return get_varint(p, len, at, &v);
    case 1: *at += 8; return *at <= len ? 0 : -1;
    case 2: if (get_varint(p, len, at, &v) != 0 || v > len - *at) return -1; *at += v; return 0;
    case 5: *at += 4; return *at <= len ? 0 : -1;
    default: return -1;
    }
}

int cbr_parse_command(const uint8_t *envelope, size_t len, uint64_t *screen_id, uint64_t *serial) {
    size_t at = 0;
    while (at < len) {
        uint64_t key;
        if (get_varint(envelope, len, &at, &key) != 0) return -1;
        uint32_t field = (uint32_t)(key >> 3), wire = (uint32_t)(key & 7);
        if (field < 10 || wire != 2) {
            if (skip_field(envelope, len, &at, wire) != 0) return -1;
            continue;
        }
        uint64_t body_len;
        if (get_varint(envelope, len, &at, &body_len) != 0 || body_len > len - at) return -1;
        if (field < 20 || field > 23) return (int)field;
        // Place: screen_id 1, serial 5. Update, PlacementChanged, Dismiss: screen_id 1, serial 2.
        uint32_t serial_field = field == 20 ? 5 : 2;
        const uint8_t *body = envelope + at;
        size_t b = 0;
        *screen_id = 0;
        *serial = 0;
        while (b < body_len) {
            uint64_t inner;
            if (get_varint(body, body_len, &b, &inner) != 0) return -1;
            uint32_t f = (uint32_t)(inner >> 3), w = (uint32_t)(inner & 7);
            if (w == 0 && (f == 1 || f == serial_field)) {
                uint64_t v;
                if (get_varint(body, body_len, &b, &v) != 0) return -1;
                if (f == 1) *screen_id = v; else *serial = v;
            } else if (skip_field(body, body_len, &b, w) != 0) {
                return -1;
            }
        }
        return (int)field;
    }
    return 0;
}

size_t cbr_answer_ping(uint8_t *out, const uint8_t *envelope, size_t len) {
    uint64_t seq = 0, nonce = 0;
    size_t at = 0;
    while (at < len) {
        uint64_t key;
        if (get_varint(envelope, len, &at, &key) != 0) return 0;
        uint32_t field = (uint32_t)(key >> 3), wire = (uint32_t)(key & 7);
        if (field == 1 && wire == 0) {
            if (get_varint(envelope, len, &at, &seq) != 0) return 0;
        } else if (field == 13 && wire == 2) {
            uint64_t body_len;
            if (get_varint(envelope, len, &at, &body_len) != 0 || body_len > len - at) return 0;
            const uint8_t *body = envelope + at;
            size_t b = 0;
            while (b < body_len) {
                uint64_t inner;
                if (get_varint(body, body_len, &b, &inner) != 0) return 0;
                if (inner == (1u << 3 | 0)) {
                    if (get_varint(body, body_len, &b, &nonce) != 0) return 0;
                } else if (skip_field(body, body_len, &b, (uint32_t)(inner & 7)) != 0) {
                    return 0;
                }
            }
            at += body_len;
        } else if (skip_field(envelope, len, &at, wire) != 0) {
            return 0;
        }
    }
    return cbr_encode_pong(out, nonce, seq);
}

// MARK: - Blocking hosts

static int send_all(int fd, const uint8_t *bytes, size_t len, char *error) {
    while (len > 0) {
        ssize_t n = send(fd, bytes, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            snprintf(error, CBR_ERROR_SIZE, "write to flowd: %s", strerror(errno));
            return -1;
        }
        bytes += n;
        len -= (size_t)n;
    }
    return 0;
}

/// Reads exactly `need` bytes; waits in poll(2) first when `wait` (a frame's header: the host
/// has nothing yet) and, with a timeout, before every read.
static int recv_exact(int fd, uint8_t *into, size_t need, int wait, int timeout_ms, char *error) {
    size_t have = 0;
    while (have < need) {
        int waited = timeout_ms >= 0 || (wait && have == 0) ? cbr_wait_readable(fd, timeout_ms, error) : 0;
        if (waited == 1) snprintf(error, CBR_ERROR_SIZE, "no frame from flowd within %d ms", timeout_ms);
        if (waited != 0) return -1;
        ssize_t n = recv(fd, into + have, need - have, 0);
        if (n == 0) { snprintf(error, CBR_ERROR_SIZE, "flowd closed the connection"); return 1; }
        if (n < 0) {
            if (errno == EINTR) continue;
            snprintf(error, CBR_ERROR_SIZE, "read from flowd: %s", strerror(errno));
            return -1;
        }
        have += (size_t)n;
    }
    return 0;
}

/// Reads one frame's envelope into `buffer` (exact-size reads: header, then body).
/// Returns its length, -1 on error, -2 at end of stream.
static long read_envelope(int fd, uint8_t *buffer, size_t capacity, int timeout_ms, char *error) {
    uint8_t header[4];
    int rc = recv_exact(fd, header, 4, 1, timeout_ms, error);
    if (rc != 0) return rc > 0 ? -2 : -1;
    uint32_t len = (uint32_t)header[0] | (uint32_t)header[1] << 8 | (uint32_t)header[2] << 16 | (uint32_t)header[3] << 24;
    if (len > capacity) { snprintf(error, CBR_ERROR_SIZE, "a %u-byte frame from flowd is over the host's %zu-byte buffer", len, capacity); return -1; }
    rc = recv_exact(fd, buffer, len, 0, timeout_ms, error);
    if (rc != 0) return rc > 0 ? -2 : -1;
    return (long)len;
}

#define HOST_BUFFER (1u << 20)

int cbr_host_await_place(int fd, int timeout_ms, uint64_t *screen_id, char *error) {
    uint8_t *buffer = malloc(HOST_BUFFER);
    for (;;) {
        long len = read_envelope(fd, buffer, HOST_BUFFER, timeout_ms, error);
        if (len < 0) {
            if (len == -2) snprintf(error, CBR_ERROR_SIZE, "flowd closed the connection before placing a screen");
            free(buffer);
            return -1;
        }
        uint64_t screen = 0, serial = 0;
        int type = cbr_parse_command(buffer, (size_t)len, &screen, &serial);
        if (type == 13) {
            uint8_t pong[48];
            size_t pong_len = cbr_answer_ping(pong, buffer, (size_t)len);
            if (pong_len > 0 && send_all(fd, pong, pong_len, error) != 0) { free(buffer); return -1; }
        } else if (type >= 20 && type <= 23) {
            uint8_t ack[48];
            if (send_all(fd, ack, cbr_encode_ack(ack, screen, serial), error) != 0) { free(buffer); return -1; }
            if (type == 20) { *screen_id = screen; free(buffer); return 0; }
        }
    }
}

int cbr_flow_pingpong(int fd, const uint8_t *output, size_t output_len, uint64_t screen_id,
                      uint64_t warmup, uint64_t count, uint64_t *samples_ns, char *error) {
    uint8_t buffer[64 * 1024];
    for (uint64_t i = 0; i < warmup + count; i++) {
        uint64_t start = cbr_now_ns();
        if (send_all(fd, output, output_len, error) != 0) return -1;
        uint64_t serial = 0;
        for (;;) {
            long len = read_envelope(fd, buffer, sizeof buffer, -1, error);
            if (len < 0) return -1;
            uint64_t screen = 0, s = 0;
            int type = cbr_parse_command(buffer, (size_t)len, &screen, &s);
            if (type == 21 && screen == screen_id) { serial = s; break; }
            if (type == 12) { snprintf(error, CBR_ERROR_SIZE, "flowd sent an Error during the run"); return -1; }
            if (type == 13) {
                uint8_t pong[48];
                size_t pong_len = cbr_answer_ping(pong, buffer, (size_t)len);
                if (pong_len > 0 && send_all(fd, pong, pong_len, error) != 0) return -1;
            } else if (type >= 20 && type <= 23) {
                uint8_t ack[48];
                if (send_all(fd, ack, cbr_encode_ack(ack, screen, s), error) != 0) return -1;
            }
        }
        uint64_t end = cbr_now_ns();
        if (i >= warmup) samples_ns[i - warmup] = end - start;
        uint8_t ack[48];
        if (send_all(fd, ack, cbr_encode_ack(ack, screen_id, serial), error) != 0) return -1;
    }
    return 0;
}

int cbr_flow_peer(int fd, const uint8_t *output, size_t output_len, uint64_t screen_id, char *error) {
    uint8_t *buffer = malloc(64 * 1024);
    uint8_t *reply = malloc(output_len + 48);
    size_t have = 0;
    int status = 0;
    for (;;) {
        if (cbr_wait_readable(fd, -1, error) != 0) { status = -1; break; }
        ssize_t n = recv(fd, buffer + have, 64 * 1024 - have, 0);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno != ECONNRESET) { snprintf(error, CBR_ERROR_SIZE, "read from flowd: %s", strerror(errno)); status = -1; }
            break;
        }
        have += (size_t)n;
        size_t at = 0;
        while (have - at >= 4) {
            uint32_t len = (uint32_t)buffer[at] | (uint32_t)buffer[at + 1] << 8 | (uint32_t)buffer[at + 2] << 16 | (uint32_t)buffer[at + 3] << 24;
            if (len > 64 * 1024 - 4) { snprintf(error, CBR_ERROR_SIZE, "a %u-byte frame is over host B's buffer", len); status = -1; goto done; }
            if (have - at - 4 < len) break;
            uint64_t screen = 0, serial = 0;
            int type = cbr_parse_command(buffer + at + 4, len, &screen, &serial);
            size_t r;
            if (type == 13) {
                r = cbr_answer_ping(reply, buffer + at + 4, len);
                at += 4 + len;
                if (r > 0 && send_all(fd, reply, r, error) != 0) { status = errno == EPIPE || errno == ECONNRESET ? 0 : -1; goto done; }
                continue;
            }
            at += 4 + len;
            if (type < 20 || type > 23) continue;
            r = cbr_encode_ack(reply, screen, serial);
            if (type == 21 && screen == screen_id) {
                memcpy(reply + r, output, output_len);
                r += output_len;
            }
            if (send_all(fd, reply, r, error) != 0) { status = errno == EPIPE || errno == ECONNRESET ? 0 : -1; goto done; }
        }
        memmove(buffer, buffer + at, have - at);
        have -= at;
    }
done:
    free(buffer);
    free(reply);
    return status;
}

struct cbr_host {
    int fd;
    uint8_t *buffer;
    size_t have;
    uint64_t last_place;
};

#define PUMP_BUFFER (1u << 20)

cbr_host *cbr_host_new(int fd) {
    cbr_host *host = calloc(1, sizeof *host);
    host->fd = fd;
    host->buffer = malloc(PUMP_BUFFER);
    return host;
}

void cbr_host_free(cbr_host *host) {
    if (!host) return;
    free(host->buffer);
    free(host);
}

uint64_t cbr_host_last_place(const cbr_host *host) { return host->last_place; }

size_t cbr_encode_ping(uint8_t *out, uint64_t nonce) {
    uint8_t body[16];
    size_t n = put_key(body, 1, 0);
    n += put_varint(body + n, nonce);
    return put_frame(out, 13, body, n);
}

long long cbr_host_pump(cbr_host *host, uint64_t places, int until_pong, int timeout_ms, char *error) {
    uint8_t *acks = malloc(1u << 16);
    uint8_t *buffer = host->buffer;
    uint64_t seen = 0;
    int ponged = 0;
    long long frames = 0;
    while (seen < places || (until_pong && !ponged)) {
        int waited = cbr_wait_readable(host->fd, timeout_ms, error);
        if (waited == 1) snprintf(error, CBR_ERROR_SIZE, "only %llu of %llu Places arrived, then nothing for %d ms", (unsigned long long)seen, (unsigned long long)places, timeout_ms);
        if (waited != 0) { frames = -1; break; }
        ssize_t n = recv(host->fd, buffer + host->have, PUMP_BUFFER - host->have, 0);
        if (n == 0) { snprintf(error, CBR_ERROR_SIZE, "flowd closed the connection after %llu Places", (unsigned long long)seen); frames = -1; break; }
        if (n < 0) {
            if (errno == EINTR) continue;
            snprintf(error, CBR_ERROR_SIZE, "read from flowd: %s", strerror(errno));
            frames = -1;
            break;
        }
        host->have += (size_t)n;
        size_t at = 0, ack_len = 0;
        int failed = 0;
        while (host->have - at >= 4) {
            uint32_t len = (uint32_t)buffer[at] | (uint32_t)buffer[at + 1] << 8 | (uint32_t)buffer[at + 2] << 16 | (uint32_t)buffer[at + 3] << 24;
            if (len > PUMP_BUFFER - 4) { snprintf(error, CBR_ERROR_SIZE, "a %u-byte frame is over the host's buffer", len); failed = 1; break; }
            if (host->have - at - 4 < len) break;
            uint64_t screen = 0, serial = 0;
            const uint8_t *envelope = buffer + at + 4;
            int type = cbr_parse_command(envelope, len, &screen, &serial);
            at += 4 + len;
            frames++;
            if (type == 14) ponged = 1;
            if (type != 13 && (type < 20 || type > 23)) continue;
            if (ack_len + 48 > (1u << 16)) {
                if (send_all(host->fd, acks, ack_len, error) != 0) { failed = 1; break; }
                ack_len = 0;
            }
            // A Pong goes out with the Acks of the same read, in order.
            if (type == 13) { ack_len += cbr_answer_ping(acks + ack_len, envelope, len); continue; }
            if (type == 20) { seen++; host->last_place = screen; }
            ack_len += cbr_encode_ack(acks + ack_len, screen, serial);
        }
        if (!failed && ack_len > 0 && send_all(host->fd, acks, ack_len, error) != 0) failed = 1;
        memmove(buffer, buffer + at, host->have - at);
        host->have -= at;
        if (failed) { frames = -1; break; }
    }
    free(acks);
    return frames;
}

int cbr_host_serve(int fd, char *error) {
    cbr_host *host = cbr_host_new(fd);
    long long frames = cbr_host_pump(host, UINT64_MAX, 0, -1, error);
    cbr_host_free(host);
    return frames < 0 && strstr(error, "closed the connection") == NULL ? -1 : 0;
}

// MARK: - A flooding host

int cbr_host_flood(int fd, uint64_t screen_id, uint32_t button, int control_fd, cbr_flood_result *result, char *error) {
    memset(result, 0, sizeof *result);
    uint8_t frame[1200];
    size_t frame_len = cbr_encode_press(frame, sizeof frame, screen_id, button);
    // As many whole frames as fit in 64 KiB: one send offers the kernel all it can take.
    size_t copies = (64u * 1024u) / frame_len;
    uint8_t *pattern = malloc(frame_len * copies);
    for (size_t k = 0; k < copies; k++) memcpy(pattern + k * frame_len, frame, frame_len);
    uint8_t *buffer = malloc(PUMP_BUFFER);
    uint8_t *control = malloc(1u << 16);
    size_t have = 0, control_len = 0, control_at = 0;
    // Bytes of the current output frame already written (0: at a frame boundary).
    size_t partial = 0;
    int status = 0;
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    uint64_t start = cbr_now_ns();
    for (;;) {
        struct pollfd p[2] = {{.fd = fd, .events = POLLIN | POLLOUT}, {.fd = control_fd, .events = POLLIN}};
        int r = poll(p, 2, -1);
        if (r < 0) { if (errno == EINTR) continue; snprintf(error, CBR_ERROR_SIZE, "poll: %s", strerror(errno)); status = -1; break; }
        if (p[1].revents) break;
        if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = recv(fd, buffer + have, PUMP_BUFFER - have, 0);
            if (n == 0) { snprintf(error, CBR_ERROR_SIZE, "flowd closed the flooding host's connection"); status = -1; break; }
            if (n < 0 && errno != EAGAIN && errno != EINTR) { snprintf(error, CBR_ERROR_SIZE, "read from flowd: %s", strerror(errno)); status = -1; break; }
            if (n > 0) {
                have += (size_t)n;
                size_t at = 0;
                uint64_t last_update = 0;
                while (have - at >= 4) {
                    uint32_t len = (uint32_t)buffer[at] | (uint32_t)buffer[at + 1] << 8 | (uint32_t)buffer[at + 2] << 16 | (uint32_t)buffer[at + 3] << 24;
                    if (len > PUMP_BUFFER - 4) { snprintf(error, CBR_ERROR_SIZE, "a %u-byte frame is over the flooding host's buffer", len); status = -1; break; }
                    if (have - at - 4 < len) break;
                    uint64_t screen = 0, serial = 0;
                    const uint8_t *envelope = buffer + at + 4;
                    int type = cbr_parse_command(envelope, len, &screen, &serial);
                    at += 4 + len;
                    if (type == 12) { snprintf(error, CBR_ERROR_SIZE, "flowd sent the flooding host an Error"); status = -1; break; }
                    if (control_len + 96 > (1u << 16)) continue;
                    if (type == 13) { control_len += cbr_answer_ping(control + control_len, envelope, len); continue; }
                    if (type == 21 && screen == screen_id) { result->updates++; last_update = serial; continue; }
                    if (type >= 20 && type <= 23) control_len += cbr_encode_ack(control + control_len, screen, serial);
                }
                if (status != 0) break;
                // One cumulative Ack for the Updates of this read.
                if (last_update != 0) control_len += cbr_encode_ack(control + control_len, screen_id, last_update);
                memmove(buffer, buffer + at, have - at);
                have -= at;
            }
        }
        if (!(p[0].revents & POLLOUT)) continue;
        // Finish the output frame begun, then the Acks and Pongs, then as many outputs as the socket takes.
        for (;;) {
            const uint8_t *from;
            size_t len;
            if (partial > 0) { from = frame + partial; len = frame_len - partial; }
            else if (control_at < control_len) { from = control + control_at; len = control_len - control_at; }
            else { from = pattern; len = frame_len * copies; }
            ssize_t n = send(fd, from, len, MSG_NOSIGNAL);
            if (n < 0) {
                if (errno == EINTR) continue;
                if (errno == EAGAIN || errno == EWOULDBLOCK) break;
                snprintf(error, CBR_ERROR_SIZE, "write to flowd: %s", strerror(errno));
                status = -1;
                break;
            }
            if (partial > 0) {
                partial += (size_t)n;
                if (partial == frame_len) { partial = 0; result->outputs++; }
            } else if (control_at < control_len) {
                control_at += (size_t)n;
                if (control_at == control_len) control_at = control_len = 0;
            } else {
                result->outputs += (uint64_t)n / frame_len;
                partial = (size_t)n % frame_len;
            }
            if ((size_t)n < len) break;
        }
        if (status != 0) break;
    }
    result->seconds = (double)(cbr_now_ns() - start) / 1e9;
    fcntl(fd, F_SETFL, flags);
    free(pattern);
    free(buffer);
    free(control);
    return status;
}
