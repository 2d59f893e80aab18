#ifndef FLOWD_CBENCHRELAY_H
#define FLOWD_CBENCHRELAY_H
/// The baseline of flowbench: a minimal relay with flowd's framing (4-byte
/// little-endian length, then the body), written directly on libuv with no
/// flow logic, and the client-side drivers that load it (and flowd).
///
/// All functions report failures by returning -1 and writing a sentence into
/// the caller's `error` buffer (at least CBR_ERROR_SIZE bytes).

#include <stddef.h>
#include <stdint.h>

#define CBR_ERROR_SIZE 256

/// What the baseline server does with a complete frame.
typedef enum {
    /// Sends every frame back to its sender; the replies of one read leave in one write.
    CBR_MODE_ECHO = 0,
    /// Pairs connections in arrival order (1st with 2nd, 3rd with 4th, ...) and forwards
    /// each frame to the partner; the frames of one read leave in one write.
    CBR_MODE_RELAY = 1,
} cbr_mode;

/// Runs the baseline server on `path` until SIGTERM or SIGINT. Writes "ready\n" to
/// `ready_fd` once it listens. Each connection gets an empty frame (4 zero bytes)
/// once it can be used: at accept in echo mode, at pairing in relay mode.
int cbr_server_run(const char *path, cbr_mode mode, int ready_fd, char *error);

/// Connects a blocking Unix stream socket to `path`; returns the descriptor or -1.
int cbr_connect(const char *path, char *error);

/// Writes `hello` (may be empty), then reads and drops `frames` frames (the server's
/// ready frame, or flowd's Welcome). Blocking; gives up after `timeout_ms` per read.
int cbr_handshake(int fd, const uint8_t *hello, size_t hello_len, int frames, int timeout_ms, char *error);

/// Ping-pong on a handshaken blocking socket: `warmup + count` times, writes
/// `frame` and waits for one whole frame back. Stores the `count` round trips
/// after the warm-up, in nanoseconds, into `samples_ns`.
int cbr_pingpong(int fd, const uint8_t *frame, size_t frame_len,
                 uint64_t warmup, uint64_t count, uint64_t *samples_ns, char *error);

/// Host B of the relay: sends back every byte it reads until the peer closes.
/// Returns 0 at end of stream.
int cbr_echo_peer(int fd, char *error);

/// Many connections to one server, driven by one epoll loop.
typedef struct cbr_load cbr_load;

/// Connects `connections` clients to `path`, each writing `hello` and awaiting
/// `handshake_frames` frames; returns NULL on failure. `handshake_seconds` is
/// set to the time from the first connect to the last completed handshake.
cbr_load *cbr_load_open(const char *path, int connections,
                        const uint8_t *hello, size_t hello_len, int handshake_frames,
                        double *handshake_seconds, char *error);

/// The result of one windowed run.
typedef struct {
    /// Reply frames received in the measured interval.
    uint64_t messages;
    /// Length of the measured interval.
    double seconds;
    /// CPU time (user + system) the server process used in the interval; -1 if unknown.
    double server_cpu_seconds;
    /// CPU time this (client) process used in the interval.
    double client_cpu_seconds;
} cbr_load_result;

/// Keeps `window` copies of `request` (one frame) in flight on every connection:
/// each reply frame is answered with a new request, the requests owed after one
/// read leave in one write. Runs `warmup_seconds`, then measures `seconds`.
/// `server_pid` (0: none) names the process whose CPU time is read from /proc.
int cbr_load_run(cbr_load *load, const uint8_t *request, size_t request_len, int window,
                 double warmup_seconds, double seconds, int server_pid,
                 cbr_load_result *result, char *error);

/// Closes every connection and frees the load.
void cbr_load_close(cbr_load *load);

/// CPU seconds of process `pid`: the sum over its threads of /proc/<pid>/task/*/schedstat
/// (nanoseconds), else user + system from /proc/<pid>/stat (clock ticks); -1 if unreadable.
double cbr_process_cpu_seconds(int pid);

/// Monotonic clock in nanoseconds.
uint64_t cbr_now_ns(void);

#endif
