// The D-Bus peer of flowbench: a method call through dbus-daemon with sd-bus, the
// IPC a user would pick instead of flowd. Process B owns a well-known name and
// exports Echo (returns its `ay` argument); process A calls it synchronously.
//
// libsystemd is loaded at run time (dlopen of libsystemd.so.0), not linked: the
// package builds on a machine without libsystemd-dev, and a machine without
// libsystemd gets a row that says "unavailable" instead of a failed build. The
// few sd-bus functions used are declared below; where <systemd/sd-bus.h> is
// installed (scripts/test and scripts/bench install libsystemd-dev), the compiler
// checks every declaration against it.
#include "CBenchRelay.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if __has_include(<systemd/sd-bus.h>)
#include <systemd/sd-bus.h>
#define CBR_HAVE_SD_BUS_H 1
/// sd_bus_error.
typedef sd_bus_error cbr_sd_error;
#else
/// sd_bus_error, by value (its layout is part of libsystemd's stable ABI).
typedef struct {
    const char *name;
    const char *message;
    int _need_free;
} cbr_sd_error;
#endif

struct sd_bus;
struct sd_bus_message;
struct sd_bus_slot;

/// sd_bus_message_handler_t.
typedef int (*cbr_sd_handler)(struct sd_bus_message *message, void *userdata, cbr_sd_error *ret_error);

/// Every sd-bus function used: return type, name, parameters.
#define CBR_SD_BUS_FUNCTIONS(X)                                                                                        \
    X(int, sd_bus_new, (struct sd_bus **bus))                                                                          \
    X(int, sd_bus_set_address, (struct sd_bus *bus, const char *address))                                              \
    X(int, sd_bus_set_bus_client, (struct sd_bus *bus, int b))                                                         \
    X(int, sd_bus_start, (struct sd_bus *bus))                                                                         \
    X(struct sd_bus *, sd_bus_flush_close_unref, (struct sd_bus *bus))                                                 \
    X(int, sd_bus_request_name, (struct sd_bus *bus, const char *name, uint64_t flags))                                \
    X(int, sd_bus_add_object,                                                                                          \
      (struct sd_bus *bus, struct sd_bus_slot **slot, const char *path, cbr_sd_handler callback, void *userdata))      \
    X(int, sd_bus_process, (struct sd_bus *bus, struct sd_bus_message **r))                                            \
    X(int, sd_bus_wait, (struct sd_bus *bus, uint64_t timeout_usec))                                                   \
    X(int, sd_bus_send, (struct sd_bus *bus, struct sd_bus_message *m, uint64_t *cookie))                              \
    X(int, sd_bus_call,                                                                                                \
      (struct sd_bus *bus, struct sd_bus_message *m, uint64_t usec, cbr_sd_error *ret_error,                           \
       struct sd_bus_message **reply))                                                                                 \
    X(int, sd_bus_message_new_method_call,                                                                             \
      (struct sd_bus *bus, struct sd_bus_message **m, const char *destination, const char *path,                       \
       const char *interface, const char *member))                                                                     \
    X(int, sd_bus_message_new_method_return, (struct sd_bus_message *call, struct sd_bus_message **m))                 \
    X(int, sd_bus_message_is_method_call, (struct sd_bus_message *m, const char *interface, const char *member))       \
    X(int, sd_bus_message_append_array, (struct sd_bus_message *m, char type, const void *ptr, size_t size))           \
    X(int, sd_bus_message_read_array, (struct sd_bus_message *m, char type, const void **ptr, size_t *size))           \
    X(struct sd_bus_message *, sd_bus_message_unref, (struct sd_bus_message *m))                                       \
    X(void, sd_bus_error_free, (cbr_sd_error *e))

#ifdef CBR_HAVE_SD_BUS_H
#define CBR_CHECK(ret, name, params)                                                                                   \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), ret(*) params),                                     \
                   #name " is declared differently in <systemd/sd-bus.h>");
CBR_SD_BUS_FUNCTIONS(CBR_CHECK)
_Static_assert(__builtin_types_compatible_p(sd_bus_message_handler_t, cbr_sd_handler),
               "sd_bus_message_handler_t is declared differently in <systemd/sd-bus.h>");
#endif

/// The functions, found in libsystemd.so.0 by cbr_dbus_load.
static struct {
#define CBR_MEMBER(ret, name, params) ret(*name) params;
    CBR_SD_BUS_FUNCTIONS(CBR_MEMBER)
} sd;
static int sd_loaded;

/// The well-known name, object, interface and method of the echo server.
static const char bench_name[] = "org.flowd.Bench";
static const char bench_path[] = "/org/flowd/Bench";
static const char bench_interface[] = "org.flowd.Bench";
static const char bench_member[] = "Echo";

int cbr_dbus_load(char *error) {
    if (sd_loaded) return 0;
    void *library = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(error, CBR_ERROR_SIZE, "libsystemd.so.0 cannot be loaded (%s); install Debian's libsystemd0", dlerror());
        return -1;
    }
#define CBR_LOAD(ret, name, params)                                                                                    \
    sd.name = (ret(*) params)dlsym(library, #name);                                                                    \
    if (!sd.name) {                                                                                                    \
        snprintf(error, CBR_ERROR_SIZE, "libsystemd.so.0 has no %s; it is too old for sd-bus (systemd 221 or later)",  \
                 #name);                                                                                               \
        return -1;                                                                                                     \
    }
    CBR_SD_BUS_FUNCTIONS(CBR_LOAD)
    sd_loaded = 1;
    return 0;
}

/// Connects to the bus at `address` as a bus client (sends Hello); NULL and `error` on failure.
static struct sd_bus *bus_connect(const char *address, char *error) {
    if (cbr_dbus_load(error) != 0) return NULL;
    struct sd_bus *bus = NULL;
    int r = sd.sd_bus_new(&bus);
    if (r >= 0) r = sd.sd_bus_set_address(bus, address);
    if (r >= 0) r = sd.sd_bus_set_bus_client(bus, 1);
    if (r >= 0) r = sd.sd_bus_start(bus);
    if (r < 0) {
        snprintf(error, CBR_ERROR_SIZE, "cannot connect to the D-Bus broker at %s: %s", address, strerror(-r));
        if (bus) sd.sd_bus_flush_close_unref(bus);
        return NULL;
    }
    return bus;
}

/// Echo(ay) -> ay: returns the argument unchanged. Other calls on the object are left to sd-bus (UnknownMethod).
static int echo_method(struct sd_bus_message *call, void *userdata, cbr_sd_error *ret_error) {
    (void)userdata;
    (void)ret_error;
    if (sd.sd_bus_message_is_method_call(call, bench_interface, bench_member) <= 0) return 0;
    const void *bytes = NULL;
    size_t size = 0;
    int r = sd.sd_bus_message_read_array(call, 'y', &bytes, &size);
    if (r < 0) return r;
    struct sd_bus_message *reply = NULL;
    r = sd.sd_bus_message_new_method_return(call, &reply);
    if (r >= 0) r = sd.sd_bus_message_append_array(reply, 'y', bytes, size);
    if (r >= 0) r = sd.sd_bus_send(NULL, reply, NULL);
    sd.sd_bus_message_unref(reply);
    return r < 0 ? r : 1;
}

int cbr_dbus_serve(const char *address, int ready_fd, char *error) {
    struct sd_bus *bus = bus_connect(address, error);
    if (!bus) return -1;
    int r = sd.sd_bus_request_name(bus, bench_name, 0);
    if (r < 0) {
        snprintf(error, CBR_ERROR_SIZE, "cannot own the name %s on %s: %s", bench_name, address, strerror(-r));
        sd.sd_bus_flush_close_unref(bus);
        return -1;
    }
    r = sd.sd_bus_add_object(bus, NULL, bench_path, echo_method, NULL);
    if (r < 0) {
        snprintf(error, CBR_ERROR_SIZE, "cannot export %s: %s", bench_path, strerror(-r));
        sd.sd_bus_flush_close_unref(bus);
        return -1;
    }
    if (ready_fd >= 0) {
        ssize_t ignored = write(ready_fd, "ready\n", 6);
        (void)ignored;
    }
    for (;;) {
        r = sd.sd_bus_process(bus, NULL);
        if (r > 0) continue;
        if (r == 0) r = sd.sd_bus_wait(bus, UINT64_MAX);
        if (r < 0) break;
    }
    sd.sd_bus_flush_close_unref(bus);
    // The broker went away (the run is over): not an error.
    if (r == -ECONNRESET || r == -ENOTCONN || r == -EPIPE) return 0;
    snprintf(error, CBR_ERROR_SIZE, "sd_bus_process/sd_bus_wait: %s", strerror(-r));
    return -1;
}

/// One synchronous call of Echo with `payload`; checks the reply carries the same bytes.
static int echo_call(struct sd_bus *bus, const uint8_t *payload, size_t len, char *error) {
    struct sd_bus_message *call = NULL, *reply = NULL;
    cbr_sd_error call_error = {0};
    int r = sd.sd_bus_message_new_method_call(bus, &call, bench_name, bench_path, bench_interface, bench_member);
    if (r >= 0) r = sd.sd_bus_message_append_array(call, 'y', payload, len);
    if (r < 0) {
        snprintf(error, CBR_ERROR_SIZE, "cannot build the Echo call: %s", strerror(-r));
        sd.sd_bus_message_unref(call);
        return -1;
    }
    r = sd.sd_bus_call(bus, call, 30 * 1000000ull, &call_error, &reply);
    sd.sd_bus_message_unref(call);
    if (r < 0) {
        snprintf(error, CBR_ERROR_SIZE, "Echo on %s failed: %s: %s", bench_name,
                 call_error.name ? call_error.name : "error", call_error.message ? call_error.message : strerror(-r));
        sd.sd_bus_error_free(&call_error);
        return -1;
    }
    const void *bytes = NULL;
    size_t size = 0;
    r = sd.sd_bus_message_read_array(reply, 'y', &bytes, &size);
    int same = r >= 0 && size == len && memcmp(bytes, payload, len) == 0;
    sd.sd_bus_message_unref(reply);
    if (!same) {
        snprintf(error, CBR_ERROR_SIZE, "Echo's reply is not the %zu bytes sent (%s, %zu bytes)", len,
                 r < 0 ? strerror(-r) : "read", size);
        return -1;
    }
    return 0;
}

int cbr_dbus_pingpong(const char *address, size_t payload_len, uint64_t warmup, uint64_t count,
                      uint64_t *samples_ns, char *error) {
    struct sd_bus *bus = bus_connect(address, error);
    if (!bus) return -1;
    uint8_t *payload = malloc(payload_len ? payload_len : 1);
    if (!payload) abort();
    for (size_t i = 0; i < payload_len; i++) payload[i] = (uint8_t)(i * 7 + 1);
    int rc = 0;
    for (uint64_t i = 0; i < warmup + count; i++) {
        uint64_t start = cbr_now_ns();
        if (echo_call(bus, payload, payload_len, error) != 0) {
            rc = -1;
            break;
        }
        uint64_t end = cbr_now_ns();
        if (i >= warmup) samples_ns[i - warmup] = end - start;
    }
    free(payload);
    sd.sd_bus_flush_close_unref(bus);
    return rc;
}
