/* A flowd screen host: the handshake, the screens it shows, acks, keyed inputs, and resuming after
 * a drop (docs/protocol.md sections 4 to 11, 15, 19 and 20). One connection at a time; never blocks. */
#include "host.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- Small helpers ------------------------------------------------------------------------- */

static char *copy_string(const char *text) {
    return text ? strdup(text) : NULL;
}

const char *flowd_error_name(int code) {
    static const char *const wire[] = {
        "UNSPECIFIED", "MALFORMED_FRAME", "FRAME_TOO_LARGE", "UNSUPPORTED_VERSION", "UNAUTHORIZED",
        "UNEXPECTED_MESSAGE", "HANDSHAKE_TIMEOUT", "UNKNOWN_SCREEN", "NOT_YOUR_SCREEN", "UNKNOWN_SERIAL",
        "BAD_PAYLOAD", "ACK_TIMEOUT", "WRITE_QUEUE_OVERFLOW", "UNKNOWN_KIND", "INVALID_NAVIGATION",
        "UNKNOWN_FLOW", "LIMIT_EXCEEDED", "SHUTTING_DOWN", "INTERNAL", "RESUME_REFUSED", "BAD_LINK",
        "UNKNOWN_LINK", "LINK_REFUSED", "FRAME_TIMEOUT",
    };
    static const char *const local[] = {
        "INVALID_ARGUMENT", "CONNECT", "NOT_SPAWNED", "IO", "CLOSED", "NO_MEMORY", "NO_WELCOME", "NOT_HOSTED",
        "UNTRUSTED_SERVER",
    };
    if (code >= 0 && code < (int)(sizeof wire / sizeof *wire)) return wire[code];
    if (code >= 1000 && code < 1000 + (int)(sizeof local / sizeof *local)) return local[code - 1000];
    return "UNSPECIFIED";
}

/* ---- Options and start ------------------------------------------------------------------------ */

void flowd_screen_options_init(flowd_screen_options *options) {
    *options = (flowd_screen_options){
        .name = "libflowd-screen",
        .handshake_timeout_ms = 5000,
        .reconnect = true,
        .reconnect_initial_ms = 25,
        .reconnect_max_ms = 500,
        .give_up_after_ms = -1,
    };
}

bool flowd_screen_is_spawned(void) {
    const char *fd = getenv("FLOWD_SOCKET_FD");
    return fd && *fd;
}

static uint64_t random_key_base(void) {
    uint64_t value = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &value, sizeof value) != (ssize_t)sizeof value) value = 0;
        close(fd);
    }
    if (value == 0) value = (uint64_t)getpid() << 32 ^ fl_now_ms() * 2654435761u;
    return (value >> 2) + 1; /* 62 bits, never 0: a key is any non-zero value */
}

static flowd_screen_host *new_host(const flowd_screen_options *options, flowd_error *error) {
    if (!options) {
        fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "no options (flowd_screen_options_init fills them in)");
        return NULL;
    }
    if (options->max_frame_size > 0 && options->max_frame_size < FW_MIN_MAX_FRAME) {
        fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "max_frame_size %u is under 4096, which flowd refuses",
                options->max_frame_size);
        return NULL;
    }
    if (options->provides_count && !options->provides) {
        fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "provides_count is %zu but provides is NULL",
                options->provides_count);
        return NULL;
    }
    flowd_screen_host *host = calloc(1, sizeof *host);
    if (!host) {
        fl_fail(error, FLOWD_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    host->options = *options;
    host->link.fd = -1;
    host->name = copy_string(options->name ? options->name : "libflowd-screen");
    host->provides = calloc(options->provides_count + 1, sizeof *host->provides);
    bool ok = host->name && host->provides;
    for (size_t i = 0; ok && i < options->provides_count; i++) {
        if (!options->provides[i]) {
            host->provides_count = i; /* the copies so far are freed */
            flowd_screen_free(host);
            fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "provides[%zu] is NULL", i);
            return NULL;
        }
        ok = (host->provides[i] = copy_string(options->provides[i])) != NULL;
    }
    host->provides_count = options->provides_count;
    host->options.provides = NULL;
    host->options.name = NULL;
    host->options.socket_path = NULL;
    if (host->options.handshake_timeout_ms == 0) host->options.handshake_timeout_ms = 5000;
    if (host->options.reconnect_initial_ms == 0) host->options.reconnect_initial_ms = 25;
    if (host->options.reconnect_max_ms < host->options.reconnect_initial_ms)
        host->options.reconnect_max_ms = host->options.reconnect_initial_ms;
    host->key_base = random_key_base();
    host->link.max_frame = FW_DEFAULT_MAX_FRAME;
    if (!ok) {
        flowd_screen_free(host);
        fl_fail(error, FLOWD_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    return host;
}

flowd_screen_host *flowd_screen_connect(const flowd_screen_options *options, flowd_error *error) {
    flowd_screen_host *host = new_host(options, error);
    if (!host) return NULL;
    char path[512];
    if (options->socket_path) {
        host->socket_path = copy_string(options->socket_path);
    } else if (fl_default_socket_path(path, sizeof path) == 0) {
        host->socket_path = copy_string(path);
    } else {
        flowd_screen_free(host);
        fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "the socket path from the environment is too long");
        return NULL;
    }
    int fd = host->socket_path ? fl_connect_socket(host->socket_path, error) : -1;
    if (fd < 0) {
        if (!host->socket_path) fl_fail(error, FLOWD_ERROR_NO_MEMORY, "out of memory");
        flowd_screen_free(host);
        return NULL;
    }
    fh_begin_handshake(host, fd);
    return host;
}

flowd_screen_host *flowd_screen_spawned(const flowd_screen_options *options, flowd_error *error) {
    const char *fd_text = getenv("FLOWD_SOCKET_FD");
    const char *token = getenv("FLOWD_TOKEN");
    if (!fd_text || !*fd_text) {
        fl_fail(error, FLOWD_ERROR_NOT_SPAWNED, "FLOWD_SOCKET_FD is not set: this process was not spawned by flowd");
        return NULL;
    }
    char *end = NULL;
    errno = 0;
    long fd = strtol(fd_text, &end, 10);
    if (errno || *end || fd < 0 || fd > 65535) {
        fl_fail(error, FLOWD_ERROR_NOT_SPAWNED, "FLOWD_SOCKET_FD is '%s', not a descriptor number", fd_text);
        return NULL;
    }
    if (!token || !*token) {
        fl_fail(error, FLOWD_ERROR_NOT_SPAWNED, "FLOWD_SOCKET_FD is set but FLOWD_TOKEN is not");
        return NULL;
    }
    int flags = fcntl((int)fd, F_GETFL);
    if (flags < 0) {
        fl_fail(error, FLOWD_ERROR_NOT_SPAWNED, "FLOWD_SOCKET_FD %ld is not an open descriptor: %s", fd, strerror(errno));
        return NULL;
    }
    flowd_screen_host *host = new_host(options, error);
    if (!host) return NULL;
    host->spawned = true;
    host->options.reconnect = false; /* a spawned screen is restarted by flowd instead (section 19) */
    if (!(host->token = copy_string(token))) {
        flowd_screen_free(host);
        fl_fail(error, FLOWD_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    fcntl((int)fd, F_SETFL, flags | O_NONBLOCK);
    fcntl((int)fd, F_SETFD, FD_CLOEXEC);
    fh_begin_handshake(host, (int)fd);
    return host;
}

flowd_screen_host *flowd_screen_open(const flowd_screen_options *options, flowd_error *error) {
    return flowd_screen_is_spawned() ? flowd_screen_spawned(options, error) : flowd_screen_connect(options, error);
}

static void free_screens(flowd_screen_host *host) {
    free(host->screens);
    host->screens = NULL;
    host->screen_count = host->screen_capacity = 0;
    fh_clear_saved(host);
    free(host->saved);
    host->saved = NULL;
    host->saved_capacity = 0;
}

void flowd_screen_free(flowd_screen_host *host) {
    if (!host) return;
    free(host->name);
    for (size_t i = 0; host->provides && i < host->provides_count; i++) free(host->provides[i]);
    free(host->provides);
    free(host->socket_path);
    free(host->token);
    free(host->resume_token);
    free(host->server);
    free(host->app);
    free_screens(host);
    fh_inputs_free(host);
    fl_free(&host->link);
    free(host);
}

/* ---- Screens ----------------------------------------------------------------------------------- */

fh_screen *fh_find_screen(flowd_screen_host *host, uint64_t id) {
    for (size_t i = 0; i < host->screen_count; i++)
        if (host->screens[i].id == id) return &host->screens[i];
    return NULL;
}

fh_screen *fh_add_screen(flowd_screen_host *host, uint64_t id) {
    fh_screen *screen = fh_find_screen(host, id);
    if (screen) return screen;
    if (host->screen_count == host->screen_capacity) {
        size_t capacity = host->screen_capacity ? host->screen_capacity * 2 : 8;
        fh_screen *screens = realloc(host->screens, capacity * sizeof *screens);
        if (!screens) return NULL;
        host->screens = screens;
        host->screen_capacity = capacity;
    }
    screen = &host->screens[host->screen_count++];
    *screen = (fh_screen){.id = id};
    return screen;
}

void fh_remove_screen(flowd_screen_host *host, uint64_t id) {
    fh_screen *screen = fh_find_screen(host, id);
    if (screen) *screen = host->screens[--host->screen_count];
}

fh_saved *fh_find_saved(flowd_screen_host *host, uint64_t id) {
    for (size_t i = 0; i < host->saved_count; i++)
        if (host->saved[i].id == id) return &host->saved[i];
    return NULL;
}

void fh_remove_saved(flowd_screen_host *host, uint64_t id) {
    fh_saved *saved = fh_find_saved(host, id);
    if (!saved) return;
    free(saved->data);
    *saved = host->saved[--host->saved_count];
}

void fh_clear_saved(flowd_screen_host *host) {
    for (size_t i = 0; i < host->saved_count; i++) free(host->saved[i].data);
    host->saved_count = 0;
}

size_t flowd_screen_count(const flowd_screen_host *host) {
    return host ? host->screen_count : 0;
}

const flowd_welcome *flowd_screen_welcome(const flowd_screen_host *host) {
    return host && host->welcomed ? &host->welcome : NULL;
}

const flowd_end *flowd_screen_end(const flowd_screen_host *host) {
    static const flowd_end none = {0};
    return host ? &host->end : &none;
}

/* ---- Placements -------------------------------------------------------------------------------- */

int flowd_placement_stack_index(const flowd_placement *placement) {
    if (!placement || placement->path_count < 2) return -1;
    const flowd_path_step *screen = &placement->path[placement->path_count - 1];
    const flowd_path_step *container = &placement->path[placement->path_count - 2];
    if (container->kind != FLOWD_NODE_STACK || screen->presented) return -1;
    return (int)screen->index;
}

bool flowd_placement_tab(const flowd_placement *placement, uint32_t *tab, uint32_t *tab_count) {
    if (!placement) return false;
    for (size_t i = placement->path_count; i-- > 1;) {
        const flowd_path_step *step = &placement->path[i];
        if (step->presented) return false; /* a modal is above any tab bar further up */
        if (placement->path[i - 1].kind == FLOWD_NODE_TAB_BAR) {
            if (tab) *tab = step->index;
            if (tab_count) *tab_count = placement->path[i - 1].tab_count;
            return true;
        }
    }
    return false;
}

bool flowd_placement_is_modal(const flowd_placement *placement) {
    if (!placement) return false;
    for (size_t i = 0; i < placement->path_count; i++)
        if (placement->path[i].presented) return true;
    return false;
}

/* ---- The event loop's side ------------------------------------------------------------------- */

int flowd_screen_fd(const flowd_screen_host *host) {
    return host && host->phase != FH_ENDED ? host->link.fd : -1;
}

short flowd_screen_events(const flowd_screen_host *host) {
    if (!host || host->link.fd < 0 || host->phase == FH_ENDED) return 0;
    return (short)(POLLIN | (fl_writing(&host->link) ? POLLOUT : 0));
}

int flowd_screen_timeout_ms(const flowd_screen_host *host) {
    if (!host) return -1;
    uint64_t deadline;
    switch (host->phase) {
    case FH_WAITING: deadline = host->next_try_ms; break;
    case FH_HANDSHAKE: deadline = host->handshake_deadline_ms; break;
    default: return -1;
    }
    uint64_t now = fl_now_ms();
    if (deadline <= now) return 0;
    return deadline - now > INT32_MAX ? INT32_MAX : (int)(deadline - now);
}

int flowd_screen_run(flowd_screen_host *host) {
    if (!host) return FLOWD_END_ERROR;
    while (host->phase != FH_ENDED) {
        struct pollfd watch = {.fd = flowd_screen_fd(host), .events = flowd_screen_events(host)};
        int ready = poll(watch.fd >= 0 ? &watch : NULL, watch.fd >= 0 ? 1 : 0, flowd_screen_timeout_ms(host));
        if (ready < 0 && errno != EINTR) {
            fh_end_with_error(host, FLOWD_ERROR_IO, "poll(): %s", strerror(errno));
            break;
        }
        flowd_screen_dispatch(host);
    }
    return host->end.reason;
}
