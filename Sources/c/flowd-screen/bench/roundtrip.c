/* What a host on libflowd-screen pays per output (scripts/libflowd-screen bench): against flowd's
 * `bench-echo` app (every output of screen echo-0 updates it), one output in flight, N round trips
 * from sending an Output to handling the Update it caused. Each output carries its input key and a
 * Ping that confirms it, as every output of the library does. Prints the latency percentiles and
 * the host process's CPU per round trip (getrusage): the library's side, not flowd's.
 *
 *   roundtrip SOCKET [N]      (N defaults to 20,000, after 2,000 of warm-up) */
#include <flowd/screen.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

typedef struct bench {
    uint64_t screen;
    long warmup, count, done;
    uint64_t sent_at;
    uint64_t *latencies;
    struct rusage usage_at_start;
} bench;

static uint64_t now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* CardOutput {did_press_button {index: 0}} in protobuf: the demo's own content type. */
static const uint8_t press[] = {0x0a, 0x02, 0x08, 0x00};

static void send_one(flowd_screen_host *host, bench *b) {
    flowd_payload payload = {.content_type = "application/protobuf; proto=flowd.demo.v1.CardOutput",
                             .data = press, .size = sizeof press};
    flowd_error error;
    b->sent_at = now_ns();
    if (flowd_screen_send_output(host, b->screen, &payload, &error) < 0) {
        fprintf(stderr, "roundtrip: %s\n", error.message);
        exit(1);
    }
}

static void placed(flowd_screen_host *host, const flowd_place *place, void *user) {
    bench *b = user;
    b->screen = place->screen_id;
    send_one(host, b);
}

static void updated(flowd_screen_host *host, const flowd_update *update, void *user) {
    (void)update;
    bench *b = user;
    uint64_t latency = now_ns() - b->sent_at;
    long index = b->done++ - b->warmup;
    if (index == -1) getrusage(RUSAGE_SELF, &b->usage_at_start);
    if (index >= 0) b->latencies[index] = latency;
    if (b->done < b->warmup + b->count) send_one(host, b);
    else flowd_screen_stop(host);
}

static int by_value(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double seconds(struct timeval t) {
    return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: roundtrip SOCKET [N]\n");
        return 64;
    }
    bench b = {.warmup = 2000, .count = argc > 2 ? atol(argv[2]) : 20000};
    if (b.count <= 0) return 64;
    b.latencies = calloc((size_t)b.count, sizeof *b.latencies);
    const char *kinds[] = {"echo-0"};
    flowd_screen_options options;
    flowd_screen_options_init(&options);
    options.name = "libflowd-screen roundtrip";
    options.socket_path = argv[1];
    options.provides = kinds;
    options.provides_count = 1;
    options.callbacks.placed = placed;
    options.callbacks.updated = updated;
    options.user = &b;
    flowd_error error;
    flowd_screen_host *host = flowd_screen_connect(&options, &error);
    if (!host) {
        fprintf(stderr, "roundtrip: %s\n", error.message);
        return 1;
    }
    flowd_screen_run(host);
    struct rusage end;
    getrusage(RUSAGE_SELF, &end);
    if (b.done < b.warmup + b.count) {
        fprintf(stderr, "roundtrip: only %ld round trips (%s)\n", b.done, flowd_screen_end(host)->error.message);
        return 1;
    }
    double cpu = seconds(end.ru_utime) + seconds(end.ru_stime) - seconds(b.usage_at_start.ru_utime) -
                 seconds(b.usage_at_start.ru_stime);
    qsort(b.latencies, (size_t)b.count, sizeof *b.latencies, by_value);
    printf("%ld round trips (output -> update, one in flight): p50 %.1f us, p99 %.1f us; host CPU %.2f us per round trip\n",
           b.count, (double)b.latencies[b.count / 2] / 1e3, (double)b.latencies[b.count * 99 / 100] / 1e3,
           cpu / (double)b.count * 1e6);
    flowd_screen_free(host);
    free(b.latencies);
    return 0;
}
