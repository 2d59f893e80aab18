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

/// Waits until `fd` has bytes to read (poll(2) for POLLIN; `timeout_ms` < 0: no limit):
/// 0 when it has, 1 when the time ran out (nothing written to `error`), -1 on failure.
/// Every blocking host waits here before it reads, as an event loop's host does
/// (libflowd-screen's poll loop, GTK, libuv): a host blocked in recv(2) instead is woken each
/// time the server reads what the host wrote (a Unix stream socket wakes one wait queue for
/// data and for room to write), and on one CPU that woken host takes the CPU from the
/// server only to sleep again (docs/performance.md, "The relay on one CPU").
int cbr_wait_readable(int fd, int timeout_ms, char *error);

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

/// Like cbr_load_open, but every connection is a flowd screen host: connection i
/// sends a Hello that provides kind `<kind_prefix><i>` and counts as connected once
/// its screen is placed (the Place is acknowledged). Run it with cbr_load_run and
/// `request` = the NUL-terminated JSON of an output: each connection then sends that
/// output for its own screen, counts the Updates of its screen as replies and
/// acknowledges them (one cumulative Ack per read). Hosts answer the daemon's Pings
/// (its hang watchdog) with Pongs, during the handshake too.
cbr_load *cbr_load_open_hosts(const char *path, int connections, const char *kind_prefix,
                              double *handshake_seconds, char *error);

/// One output of a latency run: when it was queued and how long until the Update it caused
/// was read; `answered` 0 if the run ended first (`latency_ns` then runs to the end: a lower bound).
typedef struct {
    uint64_t sent_ns;
    uint64_t latency_ns;
    uint32_t answered;
} cbr_latency_sample;

/// A latency run on a load of hosts (cbr_load_open_hosts): every connection keeps `window`
/// outputs (presses of button `button`) in flight as cbr_load_run does, and each Update of its screen
/// answers its oldest output (one Update per output, in order): a sample from the time that output
/// was queued to the read of the Update. Runs until `control_fd` is readable or ends (nothing is
/// read from it). Stores a malloc'ed array (the caller frees it) in `samples` and its length in `count`.
int cbr_load_run_latency(cbr_load *load, uint32_t button, int window, int control_fd,
                         cbr_latency_sample **samples, size_t *count, char *error);

/// Closes every connection and frees the load.
void cbr_load_close(cbr_load *load);

// MARK: - flowd screen hosts (flowhost.c)

/// Writes a Hello frame (screen host, version 1) into `out`; returns its length, 0 if
/// `capacity` is too small. `provides` (one kind) and `token` may be NULL.
size_t cbr_encode_hello(uint8_t *out, size_t capacity, const char *name, const char *provides, const char *token);

/// Writes an Output frame for `screen_id` with a payload of `data_len` bytes in `content_type` into
/// `out`; returns its length (0: too small).
size_t cbr_encode_output(uint8_t *out, size_t capacity, uint64_t screen_id, const char *content_type,
                         const uint8_t *data, size_t data_len);

/// The content type of the demo's card outputs (proto/flowd/demo/v1/cards.proto).
#define CBR_CARD_OUTPUT_CONTENT_TYPE "application/protobuf; proto=flowd.demo.v1.CardOutput"

/// Writes an Output frame for `screen_id` saying button `button` was pressed (a protobuf
/// `flowd.demo.v1.CardOutput`, what every bench app's screens take) into `out`; returns its length.
size_t cbr_encode_press(uint8_t *out, size_t capacity, uint64_t screen_id, uint32_t button);

/// Writes an Ack frame (at most 48 bytes) into `out`; returns its length.
size_t cbr_encode_ack(uint8_t *out, uint64_t screen_id, uint64_t serial);

/// Writes a Ping frame (at most 32 bytes) into `out`; returns its length.
size_t cbr_encode_ping(uint8_t *out, uint64_t nonce);

/// Writes a Pong frame (at most 48 bytes) with `nonce` and `reply_to` into `out`; returns its length.
size_t cbr_encode_pong(uint8_t *out, uint64_t nonce, uint64_t reply_to);

/// Writes into `out` (at least 48 bytes) the Pong that answers the Ping `envelope` (without its
/// 4-byte header): the same nonce, reply_to = the Ping's seq. Returns its length, 0 if malformed.
/// Every host here answers the daemon's hang watchdog this way.
size_t cbr_answer_ping(uint8_t *out, const uint8_t *envelope, size_t len);

/// Parses an envelope (without its 4-byte header): returns the body's field number
/// (20 Place, 21 Update, 22 PlacementChanged, 23 Dismiss, 12 Error, 14 Pong, ...;
/// 0 none, -1 malformed) and, for the four screen commands, their screen id and serial.
int cbr_parse_command(const uint8_t *envelope, size_t len, uint64_t *screen_id, uint64_t *serial);

/// Blocking: reads frames until a Place arrives, acknowledging every screen command;
/// stores the placed screen's id. Exact-size reads: nothing past that frame is consumed.
int cbr_host_await_place(int fd, int timeout_ms, uint64_t *screen_id, char *error);

/// Latency through a flow (host A): `warmup + count` times, writes `output` and waits for
/// an Update of `screen_id`; the round trip ends when it is read, then it is acknowledged.
int cbr_flow_pingpong(int fd, const uint8_t *output, size_t output_len, uint64_t screen_id,
                      uint64_t warmup, uint64_t count, uint64_t *samples_ns, char *error);

/// Host B of the flow relay: acknowledges every command; for each Update of `screen_id`
/// writes the Ack and `output` in one write. Returns 0 when flowd closes.
int cbr_flow_peer(int fd, const uint8_t *output, size_t output_len, uint64_t screen_id, char *error);

/// A buffered blocking screen host that acknowledges everything it reads.
typedef struct cbr_host cbr_host;

/// A host reading `fd` (not owned).
cbr_host *cbr_host_new(int fd);

/// Frees the host (not its descriptor).
void cbr_host_free(cbr_host *host);

/// The screen id of the last Place the host read.
uint64_t cbr_host_last_place(const cbr_host *host);

/// Reads and acknowledges (one write of Acks per read) until `places` Places have
/// arrived and, if `until_pong`, a Pong. Fails after `timeout_ms` without data (-1: never).
/// Returns the frames read, or -1.
long long cbr_host_pump(cbr_host *host, uint64_t places, int until_pong, int timeout_ms, char *error);

/// Acknowledges everything until flowd closes the connection (a spawned screen's life).
int cbr_host_serve(int fd, char *error);

/// What a flooding host did.
typedef struct {
    /// Whole Output frames handed to the socket.
    uint64_t outputs;
    /// Updates of its screen read (one per output the daemon handled).
    uint64_t updates;
    /// Seconds from the start to the stop.
    double seconds;
} cbr_flood_result;

/// Floods: writes Outputs of `screen_id` (presses of `button`) as fast as the socket takes them
/// (non-blocking, whole frames), reads its Updates and acknowledges them (one cumulative Ack per
/// read, between two outputs), answers Pings, until `control_fd` is readable (nothing is read from it).
int cbr_host_flood(int fd, uint64_t screen_id, uint32_t button, int control_fd, cbr_flood_result *result, char *error);

/// CPU seconds of process `pid`: the sum over its threads of /proc/<pid>/task/*/schedstat
/// (nanoseconds), else user + system from /proc/<pid>/stat (clock ticks); -1 if unreadable.
double cbr_process_cpu_seconds(int pid);

/// Monotonic clock in nanoseconds.
uint64_t cbr_now_ns(void);

/// Pins the calling thread to CPU `cpu` alone (`sched_setaffinity`); processes and threads it starts
/// afterwards inherit that. 0, or -1 and why.
int cbr_pin_to_cpu(int cpu, char *error);

/// How many CPUs the calling thread may run on (`sched_getaffinity`: a cgroup's cpuset, offline
/// CPUs and `taskset` all narrow it), with the lowest and the highest in `first` and `last`; -1 if
/// it cannot be read.
int cbr_allowed_cpus(int *first, int *last);

/// Gives every thread of process `pid` the nice value `nice`, or (when `rr_priority` > 0) SCHED_RR
/// at that priority with SCHED_RESET_ON_FORK: what a unit's Nice= or CPUSchedulingPolicy=rr with
/// CPUSchedulingResetOnFork=yes gives a service. 0, or -1 with `error` (CBR_ERROR_SIZE bytes) set.
int cbr_set_scheduling(int pid, int nice, int rr_priority, char *error);


// MARK: - The D-Bus peer (dbus.c): sd-bus through dbus-daemon, libsystemd loaded at run time

/// Loads libsystemd.so.0 and its sd-bus functions (once); -1 and why if it cannot.
int cbr_dbus_load(char *error);

/// Process B: connects to the bus at `address` (a D-Bus address, `unix:path=...`), owns the
/// name org.flowd.Bench and serves Echo(ay) -> ay on /org/flowd/Bench, returning its argument.
/// Writes "ready\n" to `ready_fd` once the name is owned; returns 0 when the broker goes away.
int cbr_dbus_serve(const char *address, int ready_fd, char *error);

/// Process A: `warmup + count` synchronous calls of Echo (sd_bus_call, one in flight) with a
/// `payload_len`-byte argument, each reply checked; stores the `count` round trips after the
/// warm-up (building the call to reading the reply), in nanoseconds, into `samples_ns`.
int cbr_dbus_pingpong(const char *address, size_t payload_len, uint64_t warmup, uint64_t count,
                      uint64_t *samples_ns, char *error);

#endif
