// Client-side drivers of flowbench: blocking ping-pong, the relay's echoing host,
// and an epoll load generator with many connections.
#define _GNU_SOURCE
#include "CBenchRelay.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>

uint64_t cbr_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/// Sum of the on-CPU nanoseconds of every thread of `pid` (first field of
/// /proc/<pid>/task/<tid>/schedstat): nanosecond resolution, unlike the 10 ms ticks of stat.
static double schedstat_cpu_seconds(int pid) {
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *tasks = opendir(path);
    if (!tasks) return -1;
    unsigned long long total = 0;
    int found = 0;
    struct dirent *entry;
    while ((entry = readdir(tasks)) != NULL) {
        if (entry->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "/proc/%d/task/%.20s/schedstat", pid, entry->d_name);
        FILE *file = fopen(path, "re");
        if (!file) continue;
        unsigned long long ns = 0;
        if (fscanf(file, "%llu", &ns) == 1) { total += ns; found = 1; }
        fclose(file);
    }
    closedir(tasks);
    return found ? (double)total / 1e9 : -1;
}

double cbr_process_cpu_seconds(int pid) {
    double precise = schedstat_cpu_seconds(pid);
    if (precise >= 0) return precise;
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return -1;
    text[n] = 0;
    // Fields after the command name (which may hold spaces) start after the last ')'.
    char *p = strrchr(text, ')');
    if (!p) return -1;
    unsigned long utime = 0, stime = 0;
    // state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15)
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2) return -1;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

int cbr_pin_to_cpu(int cpu, char *error) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        snprintf(error, CBR_ERROR_SIZE, "cannot pin to CPU %d: %s", cpu, strerror(errno));
        return -1;
    }
    return 0;
}

int cbr_allowed_cpus(int *first, int *last) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    *first = -1;
    *last = -1;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &set)) continue;
        if (*first < 0) *first = cpu;
        *last = cpu;
    }
    return CPU_COUNT(&set);
}

static double self_cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6
         + (double)usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

int cbr_connect(const char *path, char *error) {
    struct sockaddr_un address = {0};
    address.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof address.sun_path) {
        snprintf(error, CBR_ERROR_SIZE, "socket path %s is too long; use a shorter directory", path);
        return -1;
    }
    strcpy(address.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(error, CBR_ERROR_SIZE, "socket(): %s; raise the open-file limit (ulimit -n)", strerror(errno));
        return -1;
    }
    for (;;) {
        if (connect(fd, (struct sockaddr *)&address, sizeof address) == 0) return fd;
        if (errno == EINTR) continue;
        if (errno == EAGAIN) { usleep(100); continue; }
        snprintf(error, CBR_ERROR_SIZE, "connect %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
}

int cbr_wait_readable(int fd, int timeout_ms, char *error) {
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, timeout_ms);
        if (r > 0) return 0;
        if (r == 0) return 1;
        if (errno != EINTR) { snprintf(error, CBR_ERROR_SIZE, "poll: %s", strerror(errno)); return -1; }
    }
}

static int write_all(int fd, const uint8_t *bytes, size_t len, char *error) {
    while (len > 0) {
        ssize_t n = send(fd, bytes, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            snprintf(error, CBR_ERROR_SIZE, "write: %s", strerror(errno));
            return -1;
        }
        bytes += n;
        len -= (size_t)n;
    }
    return 0;
}

/// Reads one whole frame (header and body), dropping its bytes. Exact-size reads:
/// nothing past the frame is consumed.
static int read_frame(int fd, int timeout_ms, char *error) {
    uint8_t header[4];
    size_t have = 0, need = 4;
    uint8_t scratch[4096];
    int in_body = 0;
    while (have < need) {
        // Waits for the frame (its header); with a timeout, before every read.
        int waited = timeout_ms >= 0 || (!in_body && have == 0) ? cbr_wait_readable(fd, timeout_ms, error) : 0;
        if (waited == 1) snprintf(error, CBR_ERROR_SIZE, "no frame from the server within %d ms", timeout_ms);
        if (waited != 0) return -1;
        size_t want = need - have;
        uint8_t *into = in_body ? scratch : header + have;
        if (in_body && want > sizeof scratch) want = sizeof scratch;
        ssize_t n = recv(fd, into, want, 0);
        if (n == 0) { snprintf(error, CBR_ERROR_SIZE, "the server closed the connection"); return -1; }
        if (n < 0) {
            if (errno == EINTR) continue;
            snprintf(error, CBR_ERROR_SIZE, "read: %s", strerror(errno));
            return -1;
        }
        have += (size_t)n;
        if (!in_body && have == 4) {
            uint32_t body = (uint32_t)header[0] | (uint32_t)header[1] << 8 | (uint32_t)header[2] << 16 | (uint32_t)header[3] << 24;
            in_body = 1;
            have = 0;
            need = body;
        }
    }
    return 0;
}

int cbr_handshake(int fd, const uint8_t *hello, size_t hello_len, int frames, int timeout_ms, char *error) {
    if (hello_len > 0 && write_all(fd, hello, hello_len, error) != 0) return -1;
    for (int i = 0; i < frames; i++) {
        if (read_frame(fd, timeout_ms, error) != 0) return -1;
    }
    return 0;
}

int cbr_pingpong(int fd, const uint8_t *frame, size_t frame_len,
                 uint64_t warmup, uint64_t count, uint64_t *samples_ns, char *error) {
    for (uint64_t i = 0; i < warmup + count; i++) {
        uint64_t start = cbr_now_ns();
        if (write_all(fd, frame, frame_len, error) != 0) return -1;
        if (read_frame(fd, -1, error) != 0) return -1;
        uint64_t end = cbr_now_ns();
        if (i >= warmup) samples_ns[i - warmup] = end - start;
    }
    return 0;
}

int cbr_echo_peer(int fd, char *error) {
    uint8_t buffer[64 * 1024];
    for (;;) {
        if (cbr_wait_readable(fd, -1, error) != 0) return -1;
        ssize_t n = recv(fd, buffer, sizeof buffer, 0);
        if (n == 0) return 0;
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == ECONNRESET) return 0;
            snprintf(error, CBR_ERROR_SIZE, "read: %s", strerror(errno));
            return -1;
        }
        if (write_all(fd, buffer, (size_t)n, error) != 0) return errno == EPIPE || errno == ECONNRESET ? 0 : -1;
    }
}

// MARK: - Load generator

typedef struct {
    int fd;
    /// Frames still expected before the handshake is done.
    int handshake_left;
    /// Header bytes gathered so far (0-3), and the header itself.
    uint8_t header_have;
    uint8_t header[4];
    /// Body bytes still to skip in the current frame.
    uint32_t body_left;
    /// Bytes of requests owed to the server and not yet written.
    size_t owed;
    /// Offset inside the request frame of the next byte to write.
    size_t offset;
    int wants_out;
    /// Flow mode (a screen host of flowd): the connection's screen, its own request
    /// frames, the envelope being gathered, and the Ack owed (cumulative: the latest serial).
    int flow;
    int placed;
    uint64_t screen_id;
    uint8_t *pattern;
    size_t request_len;
    uint8_t *envelope;
    uint32_t envelope_have, envelope_len;
    uint64_t ack_serial, acked_serial;
    uint8_t ack[48];
    size_t ack_len, ack_off;
    /// Pongs owed to the daemon's hang watchdog (written before the Ack and the outputs).
    uint8_t pong[4 * 48];
    size_t pong_len, pong_off;
    /// Latency runs: when each output in flight was queued (a ring of `window`, oldest at `sent_head`).
    uint64_t *sent_at;
    uint32_t sent_head, sent_count;
} load_connection;

struct cbr_load {
    int epoll_fd;
    int count;
    load_connection *connections;
};

/// Counts the frames completed by `bytes` on `c`.
static uint64_t count_frames(load_connection *c, const uint8_t *bytes, size_t len) {
    uint64_t frames = 0;
    size_t at = 0;
    while (at < len) {
        if (c->body_left > 0) {
            size_t take = len - at < c->body_left ? len - at : c->body_left;
            c->body_left -= (uint32_t)take;
            at += take;
            if (c->body_left == 0) frames++;
            continue;
        }
        c->header[c->header_have++] = bytes[at++];
        if (c->header_have == 4) {
            c->header_have = 0;
            c->body_left = (uint32_t)c->header[0] | (uint32_t)c->header[1] << 8
                         | (uint32_t)c->header[2] << 16 | (uint32_t)c->header[3] << 24;
            if (c->body_left == 0) frames++;
        }
    }
    return frames;
}

#define FLOW_ENVELOPE_CAP 4096

/// Flow mode: gathers each envelope and parses it; counts the Updates of the
/// connection's screen and records the serial to acknowledge.
static uint64_t count_flow_frames(load_connection *c, const uint8_t *bytes, size_t len) {
    uint64_t frames = 0;
    size_t at = 0;
    while (at < len) {
        if (c->body_left > 0) {
            size_t take = len - at < c->body_left ? len - at : c->body_left;
            if (c->envelope_len <= FLOW_ENVELOPE_CAP) memcpy(c->envelope + c->envelope_have, bytes + at, take);
            c->envelope_have += (uint32_t)take;
            c->body_left -= (uint32_t)take;
            at += take;
        } else {
            c->header[c->header_have++] = bytes[at++];
            if (c->header_have < 4) continue;
            c->header_have = 0;
            c->body_left = (uint32_t)c->header[0] | (uint32_t)c->header[1] << 8
                         | (uint32_t)c->header[2] << 16 | (uint32_t)c->header[3] << 24;
            c->envelope_len = c->body_left;
            c->envelope_have = 0;
        }
        if (c->body_left == 0 && c->header_have == 0) {
            uint64_t screen = 0, serial = 0;
            int type = c->envelope_len <= FLOW_ENVELOPE_CAP ? cbr_parse_command(c->envelope, c->envelope_len, &screen, &serial) : 0;
            if (type == 13 && c->pong_len + 48 <= sizeof c->pong) {
                c->pong_len += cbr_answer_ping(c->pong + c->pong_len, c->envelope, c->envelope_len);
            }
            if (type == 20 && !c->placed) { c->placed = 1; c->screen_id = screen; }
            if (type >= 20 && type <= 23 && screen == c->screen_id && serial > c->ack_serial) c->ack_serial = serial;
            if (type == 21 && screen == c->screen_id) frames++;
        }
    }
    return frames;
}

/// Reads everything available on `c`; returns the frames completed, or -1 if the peer closed.
static long long drain(load_connection *c, uint8_t *buffer, size_t size) {
    uint64_t frames = 0;
    for (;;) {
        ssize_t n = recv(c->fd, buffer, size, 0);
        if (n > 0) {
            frames += c->flow ? count_flow_frames(c, buffer, (size_t)n) : count_frames(c, buffer, (size_t)n);
            if ((size_t)n < size) return (long long)frames;
            continue;
        }
        if (n == 0) return -1;
        if (errno == EINTR) continue;
        if (errno == EAGAIN) return (long long)frames;
        return -1;
    }
}

void cbr_load_close(cbr_load *load) {
    if (!load) return;
    for (int i = 0; i < load->count; i++) {
        if (load->connections[i].fd >= 0) close(load->connections[i].fd);
        free(load->connections[i].pattern);
        free(load->connections[i].envelope);
        free(load->connections[i].sent_at);
    }
    if (load->epoll_fd >= 0) close(load->epoll_fd);
    free(load->connections);
    free(load);
}

static int flush_owed(cbr_load *load, load_connection *c, uint32_t index, const uint8_t *pattern, size_t request_len);
static int owes_bytes(const load_connection *c);

static int handshake_events(cbr_load *load, int timeout_ms, int *done, char *error) {
    struct epoll_event events[256];
    uint8_t buffer[16 * 1024];
    int n = epoll_wait(load->epoll_fd, events, 256, timeout_ms);
    if (n < 0 && errno != EINTR) { snprintf(error, CBR_ERROR_SIZE, "epoll_wait: %s", strerror(errno)); return -1; }
    for (int i = 0; i < n; i++) {
        load_connection *c = &load->connections[events[i].data.u32];
        long long frames = drain(c, buffer, sizeof buffer);
        if (frames < 0) {
            snprintf(error, CBR_ERROR_SIZE, "the server closed connection %u during the handshake (%d done so far)",
                     events[i].data.u32, *done);
            return -1;
        }
        if (c->flow) {
            if (c->handshake_left > 0 && c->placed) { c->handshake_left = 0; (*done)++; }
            // The Place's Ack (and any Pong) now: the watchdog pings hosts that leave acks pending.
            if (owes_bytes(c) && flush_owed(load, c, events[i].data.u32, NULL, 0) != 0) {
                snprintf(error, CBR_ERROR_SIZE, "write on connection %u during the handshake: %s", events[i].data.u32, strerror(errno));
                return -1;
            }
        } else if (c->handshake_left > 0) {
            c->handshake_left -= (int)frames;
            if (c->handshake_left <= 0) (*done)++;
        }
    }
    return 0;
}

static cbr_load *load_open(const char *path, int connections,
                           const uint8_t *hello, size_t hello_len, int handshake_frames,
                           const char *kind_prefix, double *handshake_seconds, char *error);

cbr_load *cbr_load_open(const char *path, int connections,
                        const uint8_t *hello, size_t hello_len, int handshake_frames,
                        double *handshake_seconds, char *error) {
    return load_open(path, connections, hello, hello_len, handshake_frames, NULL, handshake_seconds, error);
}

cbr_load *cbr_load_open_hosts(const char *path, int connections, const char *kind_prefix,
                              double *handshake_seconds, char *error) {
    return load_open(path, connections, NULL, 0, 1, kind_prefix, handshake_seconds, error);
}

static cbr_load *load_open(const char *path, int connections,
                           const uint8_t *hello, size_t hello_len, int handshake_frames,
                           const char *kind_prefix, double *handshake_seconds, char *error) {
    cbr_load *load = calloc(1, sizeof *load);
    load->connections = calloc((size_t)connections, sizeof(load_connection));
    load->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    for (int i = 0; i < connections; i++) load->connections[i].fd = -1;
    int done = 0;
    uint64_t start = cbr_now_ns();
    for (int i = 0; i < connections; i++) {
        load_connection *c = &load->connections[i];
        c->fd = cbr_connect(path, error);
        if (c->fd < 0) {
            char reason[CBR_ERROR_SIZE];
            snprintf(reason, sizeof reason, "%s", error);
            snprintf(error, CBR_ERROR_SIZE, "connection %d of %d: %s", i + 1, connections, reason);
            load->count = i;
            cbr_load_close(load);
            return NULL;
        }
        load->count = i + 1;
        c->handshake_left = handshake_frames;
        if (kind_prefix) {
            char kind[128];
            uint8_t own_hello[512];
            snprintf(kind, sizeof kind, "%s%d", kind_prefix, i);
            c->flow = 1;
            c->envelope = malloc(FLOW_ENVELOPE_CAP);
            size_t len = cbr_encode_hello(own_hello, sizeof own_hello, "flowbench", kind, NULL);
            if (write_all(c->fd, own_hello, len, error) != 0) { cbr_load_close(load); return NULL; }
        } else if (hello_len > 0 && write_all(c->fd, hello, hello_len, error) != 0) { cbr_load_close(load); return NULL; }
        fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
        struct epoll_event event = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        epoll_ctl(load->epoll_fd, EPOLL_CTL_ADD, c->fd, &event);
        if (handshake_frames == 0) done++;
        if (i % 64 == 63 && handshake_events(load, 0, &done, error) != 0) { cbr_load_close(load); return NULL; }
    }
    uint64_t deadline = cbr_now_ns() + 60ull * 1000000000u;
    while (done < connections) {
        if (cbr_now_ns() > deadline) {
            snprintf(error, CBR_ERROR_SIZE, "only %d of %d handshakes completed within 60 s", done, connections);
            cbr_load_close(load);
            return NULL;
        }
        if (handshake_events(load, 100, &done, error) != 0) { cbr_load_close(load); return NULL; }
    }
    *handshake_seconds = (double)(cbr_now_ns() - start) / 1e9;
    return load;
}

/// Whether `c` has bytes to write: requests, a Pong, an Ack.
static int owes_bytes(const load_connection *c) {
    return c->owed > 0 || c->pong_off < c->pong_len || c->ack_off < c->ack_len || c->ack_serial > c->acked_serial;
}

/// Writes what `c` owes; asks for EPOLLOUT if the socket is full.
static int flush_owed(cbr_load *load, load_connection *c, uint32_t index, const uint8_t *pattern, size_t request_len) {
    if (c->flow) {
        pattern = c->pattern;
        request_len = c->request_len;
        while (c->pong_off < c->pong_len) {
            ssize_t n = send(c->fd, c->pong + c->pong_off, c->pong_len - c->pong_off, MSG_NOSIGNAL);
            if (n > 0) { c->pong_off += (size_t)n; continue; }
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && errno == EAGAIN) break;
            return -1;
        }
        if (c->pong_off == c->pong_len) c->pong_off = c->pong_len = 0;
        for (;;) {
            if (c->ack_off == c->ack_len) {
                if (c->ack_serial <= c->acked_serial) break;
                c->ack_len = cbr_encode_ack(c->ack, c->screen_id, c->ack_serial);
                c->ack_off = 0;
                c->acked_serial = c->ack_serial;
            }
            ssize_t n = send(c->fd, c->ack + c->ack_off, c->ack_len - c->ack_off, MSG_NOSIGNAL);
            if (n > 0) { c->ack_off += (size_t)n; continue; }
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && errno == EAGAIN) break;
            return -1;
        }
    }
    while (c->owed > 0) {
        ssize_t n = send(c->fd, pattern + c->offset, c->owed, MSG_NOSIGNAL);
        if (n > 0) {
            c->owed -= (size_t)n;
            c->offset = (c->offset + (size_t)n) % request_len;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) break;
        return -1;
    }
    int wants = owes_bytes(c);
    if (wants != c->wants_out) {
        struct epoll_event event = {.events = EPOLLIN | (wants ? EPOLLOUT : 0), .data.u32 = index};
        epoll_ctl(load->epoll_fd, EPOLL_CTL_MOD, c->fd, &event);
        c->wants_out = wants;
    }
    return 0;
}

/// Waits up to 50 ms for events of the load (at most 1024); returns how many (0 when interrupted), or -1.
static int load_wait(cbr_load *load, struct epoll_event *events, char *error) {
    int n = epoll_wait(load->epoll_fd, events, 1024, 50);
    if (n >= 0 || errno == EINTR) return n < 0 ? 0 : n;
    snprintf(error, CBR_ERROR_SIZE, "epoll_wait: %s", strerror(errno));
    return -1;
}

int cbr_load_run(cbr_load *load, const uint8_t *request, size_t request_len, int window,
                 double warmup_seconds, double seconds, int server_pid,
                 cbr_load_result *result, char *error) {
    if (window <= 0 || request_len == 0) {
        snprintf(error, CBR_ERROR_SIZE, "the window (%d) and the request (%zu bytes) must not be empty", window, request_len);
        return -1;
    }
    // window + 1 copies: a write may start anywhere inside the first copy.
    size_t pattern_len = request_len * (size_t)(window + 1);
    uint8_t *pattern = malloc(pattern_len);
    for (int i = 0; i <= window; i++) memcpy(pattern + (size_t)i * request_len, request, request_len);
    uint8_t *buffer = malloc(64 * 1024);
    for (int i = 0; i < load->count; i++) {
        load_connection *c = &load->connections[i];
        if (c->flow) {
            uint8_t frame[1200];
            c->request_len = cbr_encode_press(frame, sizeof frame, c->screen_id, 0);
            c->pattern = malloc(c->request_len * (size_t)(window + 1));
            for (int k = 0; k <= window; k++) memcpy(c->pattern + (size_t)k * c->request_len, frame, c->request_len);
            c->owed = c->request_len * (size_t)window;
        } else {
            c->owed = request_len * (size_t)window;
        }
        if (flush_owed(load, c, (uint32_t)i, pattern, request_len) != 0) {
            snprintf(error, CBR_ERROR_SIZE, "write on connection %d: %s", i, strerror(errno));
            free(pattern); free(buffer);
            return -1;
        }
    }
    struct epoll_event events[1024];
    uint64_t start = cbr_now_ns();
    uint64_t measure_at = start + (uint64_t)(warmup_seconds * 1e9);
    uint64_t end_at = measure_at + (uint64_t)(seconds * 1e9);
    int measuring = 0;
    uint64_t total = 0, total_at_start = 0, measured_start = 0;
    double server_cpu_start = 0, client_cpu_start = 0;
    int status = 0;
    for (;;) {
        uint64_t now = cbr_now_ns();
        if (!measuring && now >= measure_at) {
            measuring = 1;
            measured_start = now;
            total_at_start = total;
            server_cpu_start = server_pid > 0 ? cbr_process_cpu_seconds(server_pid) : -1;
            client_cpu_start = self_cpu_seconds();
        }
        if (measuring && now >= end_at) {
            result->messages = total - total_at_start;
            result->seconds = (double)(now - measured_start) / 1e9;
            double server_cpu_end = server_pid > 0 ? cbr_process_cpu_seconds(server_pid) : -1;
            result->server_cpu_seconds = server_cpu_start >= 0 && server_cpu_end >= 0 ? server_cpu_end - server_cpu_start : -1;
            result->client_cpu_seconds = self_cpu_seconds() - client_cpu_start;
            break;
        }
        int n = load_wait(load, events, error);
        if (n < 0) { status = -1; break; }
        for (int i = 0; i < n; i++) {
            uint32_t index = events[i].data.u32;
            load_connection *c = &load->connections[index];
            if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
                long long frames = drain(c, buffer, 64 * 1024);
                if (frames < 0) {
                    snprintf(error, CBR_ERROR_SIZE, "the server closed connection %u during the run", index);
                    status = -1;
                    break;
                }
                total += (uint64_t)frames;
                c->owed += (size_t)frames * (c->flow ? c->request_len : request_len);
            }
            if (owes_bytes(c) && flush_owed(load, c, index, pattern, request_len) != 0) {
                snprintf(error, CBR_ERROR_SIZE, "write on connection %u: %s", index, strerror(errno));
                status = -1;
                break;
            }
        }
        if (status != 0) break;
    }
    free(pattern);
    free(buffer);
    return status;
}

// MARK: - Latency through flows

/// Appends a sample to a growing array.
static int push_sample(cbr_latency_sample **samples, size_t *count, size_t *capacity, uint64_t sent, uint64_t latency, uint32_t answered) {
    if (*count == *capacity) {
        size_t grown = *capacity ? *capacity * 2 : 1u << 16;
        cbr_latency_sample *bigger = realloc(*samples, grown * sizeof **samples);
        if (!bigger) return -1;
        *samples = bigger;
        *capacity = grown;
    }
    (*samples)[(*count)++] = (cbr_latency_sample){.sent_ns = sent, .latency_ns = latency, .answered = answered};
    return 0;
}

int cbr_load_run_latency(cbr_load *load, uint32_t button, int window, int control_fd,
                         cbr_latency_sample **samples_out, size_t *count_out, char *error) {
    if (window <= 0) {
        snprintf(error, CBR_ERROR_SIZE, "the window (%d) must not be empty", window);
        return -1;
    }
    cbr_latency_sample *samples = NULL;
    size_t count = 0, capacity = 0;
    uint64_t start = cbr_now_ns();
    for (int i = 0; i < load->count; i++) {
        load_connection *c = &load->connections[i];
        if (!c->flow) {
            snprintf(error, CBR_ERROR_SIZE, "a latency run needs screen hosts (cbr_load_open_hosts)");
            return -1;
        }
        uint8_t frame[1200];
        c->request_len = cbr_encode_press(frame, sizeof frame, c->screen_id, button);
        free(c->pattern);
        c->pattern = malloc(c->request_len * (size_t)(window + 1));
        for (int k = 0; k <= window; k++) memcpy(c->pattern + (size_t)k * c->request_len, frame, c->request_len);
        free(c->sent_at);
        c->sent_at = malloc(sizeof(uint64_t) * (size_t)window);
        c->sent_head = 0;
        c->sent_count = (uint32_t)window;
        for (int k = 0; k < window; k++) c->sent_at[k] = start;
        c->owed = c->request_len * (size_t)window;
        if (flush_owed(load, c, (uint32_t)i, NULL, 0) != 0) {
            snprintf(error, CBR_ERROR_SIZE, "write on connection %d: %s", i, strerror(errno));
            return -1;
        }
    }
    struct epoll_event control = {.events = EPOLLIN, .data.u32 = UINT32_MAX};
    if (epoll_ctl(load->epoll_fd, EPOLL_CTL_ADD, control_fd, &control) != 0) {
        snprintf(error, CBR_ERROR_SIZE, "epoll_ctl on the control descriptor %d: %s", control_fd, strerror(errno));
        return -1;
    }
    uint8_t *buffer = malloc(64 * 1024);
    struct epoll_event events[1024];
    int status = 0, stop = 0;
    while (!stop && status == 0) {
        int n = load_wait(load, events, error);
        if (n < 0) { status = -1; break; }
        for (int i = 0; i < n; i++) {
            uint32_t index = events[i].data.u32;
            if (index == UINT32_MAX) { stop = 1; continue; }
            load_connection *c = &load->connections[index];
            if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
                long long frames = drain(c, buffer, 64 * 1024);
                if (frames < 0) {
                    snprintf(error, CBR_ERROR_SIZE, "flowd closed connection %u (screen %llu) during the run; was it found hung?",
                             index, (unsigned long long)c->screen_id);
                    status = -1;
                    break;
                }
                uint64_t now = cbr_now_ns();
                for (long long f = 0; f < frames && c->sent_count > 0; f++) {
                    uint64_t sent = c->sent_at[c->sent_head];
                    if (push_sample(&samples, &count, &capacity, sent, now - sent, 1) != 0) {
                        snprintf(error, CBR_ERROR_SIZE, "out of memory after %zu samples", count);
                        status = -1;
                        break;
                    }
                    // The answered output's slot takes the new one, queued now.
                    c->sent_at[c->sent_head] = now;
                    c->sent_head = (c->sent_head + 1) % (uint32_t)window;
                }
                c->owed += (size_t)frames * c->request_len;
            }
            if (status == 0 && owes_bytes(c) && flush_owed(load, c, index, NULL, 0) != 0) {
                snprintf(error, CBR_ERROR_SIZE, "write on connection %u: %s", index, strerror(errno));
                status = -1;
            }
            if (status != 0) break;
        }
    }
    epoll_ctl(load->epoll_fd, EPOLL_CTL_DEL, control_fd, NULL);
    free(buffer);
    if (status == 0) {
        // Outputs still unanswered: their time so far, marked.
        uint64_t end = cbr_now_ns();
        for (int i = 0; i < load->count && status == 0; i++) {
            load_connection *c = &load->connections[i];
            for (uint32_t k = 0; k < c->sent_count; k++) {
                uint64_t sent = c->sent_at[(c->sent_head + k) % (uint32_t)window];
                if (push_sample(&samples, &count, &capacity, sent, end - sent, 0) != 0) { status = -1; break; }
            }
        }
    }
    if (status != 0) {
        free(samples);
        return -1;
    }
    *samples_out = samples;
    *count_out = count;
    return 0;
}

int cbr_set_scheduling(int pid, int nice, int rr_priority, char *error) {
    // Every thread of the process: nice values and policies are per thread on Linux, and a unit's
    // Nice= or CPUSchedulingPolicy= reaches them all (threads made later inherit the main thread's).
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *tasks = opendir(path);
    if (tasks == NULL) {
        snprintf(error, CBR_ERROR_SIZE, "cannot list the threads of process %d: %s", pid, strerror(errno));
        return -1;
    }
    int result = 0;
    struct dirent *entry;
    while (result == 0 && (entry = readdir(tasks)) != NULL) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        int tid = atoi(entry->d_name);
        if (rr_priority > 0) {
            struct sched_param param = {.sched_priority = rr_priority};
            if (sched_setscheduler(tid, SCHED_RR | SCHED_RESET_ON_FORK, &param) != 0) {
                snprintf(error, CBR_ERROR_SIZE, "cannot give thread %d SCHED_RR %d: %s (needs CAP_SYS_NICE or RLIMIT_RTPRIO)", tid, rr_priority, strerror(errno));
                result = -1;
            }
        } else if (setpriority(PRIO_PROCESS, (id_t)tid, nice) != 0) {
            snprintf(error, CBR_ERROR_SIZE, "cannot give thread %d nice %d: %s (a value below 0 needs CAP_SYS_NICE)", tid, nice, strerror(errno));
            result = -1;
        }
    }
    closedir(tasks);
    return result;
}
