/* One connection to flowd: the socket and who serves it, frames out and in (docs/protocol.md 1 to 4). */
#include "link.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

uint64_t fl_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}

int fl_fail(flowd_error *error, int code, const char *format, ...) {
    if (error) {
        *error = (flowd_error){.code = code};
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(error->message, sizeof error->message, format, arguments);
        va_end(arguments);
    }
    return -1;
}

int fl_check_phase(flowd_phase phase, flowd_error *error) {
    if ((int)phase < FLOWD_PHASE_IMMEDIATE || (int)phase > FLOWD_PHASE_COMMIT)
        return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "phase %d is not a flowd_phase (0 to 3)", (int)phase);
    return 0;
}

/* ---- The socket -------------------------------------------------------------------------------- */

int fl_default_socket_path(char *path, size_t size) {
    const char *explicit = getenv("FLOWD_SOCKET");
    if (explicit && *explicit) return snprintf(path, size, "%s", explicit) < (int)size ? 0 : -1;
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    if (runtime && *runtime) return snprintf(path, size, "%s/flowd/flowd.sock", runtime) < (int)size ? 0 : -1;
    return snprintf(path, size, "/tmp/flowd-%u/flowd.sock", (unsigned)getuid()) < (int)size ? 0 : -1;
}

/* Refuses (-1 with `error`) a server whose uid (SO_PEERCRED) is neither ours nor root, before
 * anything is sent: another user who created the socket's directory first would read what we send
 * and answer as flowd (docs/protocol.md section 1). The message names the socket, that uid and the
 * owner of the socket's directory. */
static int check_server(int fd, const char *path, flowd_error *error) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0)
        return fl_fail(error, FLOWD_ERROR_CONNECT, "cannot read the credentials of the server at %s (SO_PEERCRED): %s",
                       path, strerror(errno));
    uid_t ours = getuid();
    if (credentials.uid == ours || credentials.uid == 0) return 0;
    char directory[sizeof ((struct sockaddr_un *)0)->sun_path];
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(directory, sizeof directory, ".");
    else if (slash == path) snprintf(directory, sizeof directory, "/");
    else snprintf(directory, sizeof directory, "%.*s", (int)(slash - path), path);
    struct stat status;
    char owner[40] = "an owner that cannot be read";
    if (stat(directory, &status) == 0) snprintf(owner, sizeof owner, "uid %u", (unsigned)status.st_uid);
    return fl_fail(error, FLOWD_ERROR_UNTRUSTED_SERVER,
                   "refusing the server at %s: it runs as uid %u, not as this user (uid %u) or root, and its directory "
                   "%s belongs to %s; another user may be posing as flowd, so nothing was sent. Remove %s if it is not "
                   "yours (as its owner or root), or use a socket in a directory of your own (FLOWD_SOCKET or "
                   "XDG_RUNTIME_DIR)",
                   path, (unsigned)credentials.uid, (unsigned)ours, directory, owner, directory);
}

int fl_connect_socket(const char *path, flowd_error *error) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path)
        return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "the socket path %s is %zu bytes, over the %zu a Unix socket takes",
                       path, strlen(path), sizeof address.sun_path - 1);
    memcpy(address.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return fl_fail(error, FLOWD_ERROR_CONNECT, "socket(): %s", strerror(errno));
    if (connect(fd, (struct sockaddr *)&address, sizeof address) < 0) {
        int code = errno;
        close(fd);
        return fl_fail(error, FLOWD_ERROR_CONNECT, "cannot connect to flowd at %s: %s%s", path, strerror(code),
                       code == ENOENT || code == ECONNREFUSED ? " (is flowd running? `flowd serve` starts it)" : "");
    }
    if (check_server(fd, path, error) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* ---- Opening and closing ----------------------------------------------------------------------- */

void fl_open(fl_link *link, int fd) {
    link->fd = fd;
    link->broken = false;
    link->next_seq = 1;
    link->max_frame = FW_DEFAULT_MAX_FRAME;
    link->in.size = link->in_start = 0;
    link->out.size = link->out_start = 0;
}

void fl_close(fl_link *link) {
    if (link->fd >= 0) close(link->fd);
    link->fd = -1;
    link->broken = false;
    link->in.size = link->in_start = 0;
    link->out.size = link->out_start = 0;
}

void fl_free(fl_link *link) {
    if (link->fd >= 0) close(link->fd);
    link->fd = -1;
    fw_buffer_free(&link->in);
    fw_buffer_free(&link->out);
    fw_arena_reset(&link->arena);
}

/* ---- Writing -------------------------------------------------------------------------------- */

int fl_send(fl_link *link, uint32_t body_field, const fw_buffer *body, uint64_t reply_to, flowd_error *error) {
    if (link->fd < 0) return fl_fail(error, FLOWD_ERROR_CLOSED, "not connected to flowd");
    if (body->failed) return fl_fail(error, FLOWD_ERROR_NO_MEMORY, "out of memory");
    size_t length = fw_envelope_size(link->next_seq, reply_to, body_field, body->size);
    if (length > link->max_frame) /* flowd would cut the connection off with FRAME_TOO_LARGE (section 2) */
        return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "a frame of %zu bytes, over the maximum frame size of %u",
                       length, link->max_frame);
    if (link->out.size - link->out_start > FL_MAX_WRITE_QUEUE)
        return fl_fail(error, FLOWD_ERROR_IO, "flowd is not reading: %zu bytes wait to be written",
                       link->out.size - link->out_start);
    fw_put_frame(&link->out, link->next_seq++, reply_to, body_field, body);
    if (link->out.failed) {
        link->out.failed = false; /* what was queued before is intact; this frame is not sent */
        return fl_fail(error, FLOWD_ERROR_NO_MEMORY, "out of memory");
    }
    return 0; /* written by fl_flush */
}

void fl_flush(fl_link *link) {
    while (link->fd >= 0 && !link->broken && link->out_start < link->out.size) {
        ssize_t written = send(link->fd, link->out.data + link->out_start, link->out.size - link->out_start,
                               MSG_NOSIGNAL | MSG_DONTWAIT);
        if (written > 0) {
            link->out_start += (size_t)written;
        } else if (written < 0 && errno == EINTR) {
            continue;
        } else if (written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            break;
        } else {
            link->broken = true; /* the owner's dispatch treats it as the end, outside any caller's callback */
        }
    }
    if (link->out_start == link->out.size) link->out_start = link->out.size = 0;
}

bool fl_writing(const fl_link *link) {
    return link->out.size > link->out_start;
}

/* ---- Reading -------------------------------------------------------------------------------- */

int fl_read_some(fl_link *link, char *why, size_t why_size) {
    fw_buffer *in = &link->in;
    if (in->capacity - in->size < 65536) {
        if (link->in_start) { /* keep only the unfinished frame */
            memmove(in->data, in->data + link->in_start, in->size - link->in_start);
            in->size -= link->in_start;
            link->in_start = 0;
        }
        if (!fw_reserve(in, 65536)) {
            in->failed = false;
            snprintf(why, why_size, "out of memory for the incoming frames");
            return -1;
        }
    }
    for (;;) {
        size_t room = in->capacity - in->size;
        ssize_t got = recv(link->fd, in->data + in->size, room, MSG_DONTWAIT);
        if (got > 0) {
            in->size += (size_t)got;
            return (size_t)got < room ? 2 : 1; /* 2: the socket had less than the room, read it all */
        }
        if (got == 0) {
            snprintf(why, why_size, FL_END_OF_STREAM);
            return -1;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
        snprintf(why, why_size, "read: %s", strerror(errno));
        return -1;
    }
}

int fl_next_envelope(fl_link *link, fw_envelope *envelope, int *code, char *why, size_t why_size) {
    *envelope = (fw_envelope){0};
    if (link->in_start == link->in.size) {
        link->in_start = link->in.size = 0; /* all handled: the next read starts at the front */
        return 0;
    }
    fw_slice frame;
    size_t used;
    int got = fw_next_frame(link->in.data + link->in_start, link->in.size - link->in_start, link->max_frame, &frame,
                            &used, why, why_size);
    if (got == 0) return 0;
    if (got < 0) {
        *code = strstr(why, "over the maximum") ? FLOWD_ERROR_FRAME_TOO_LARGE : FLOWD_ERROR_MALFORMED_FRAME;
        return -1;
    }
    link->in_start += used;
    if (fw_decode_envelope(frame, envelope, why, why_size) < 0) {
        *code = FLOWD_ERROR_MALFORMED_FRAME;
        return -1;
    }
    return 1;
}

uint32_t fl_agreed_max_frame(uint32_t ours, uint32_t theirs) {
    if (!ours) ours = FW_DEFAULT_MAX_FRAME;
    if (!theirs) theirs = FW_DEFAULT_MAX_FRAME;
    return theirs < ours ? theirs : ours;
}

/* ---- The small frames ------------------------------------------------------------------------ */

void fl_send_hello(fl_link *link, const fw_hello *hello) {
    fw_buffer body = {0};
    fw_encode_hello(&body, hello);
    fl_send(link, FW_HELLO, &body, 0, NULL);
    fw_buffer_free(&body);
}

void fl_send_pong(fl_link *link, uint64_t nonce, uint64_t reply_to) {
    fw_buffer pong = {0};
    fw_put_varint_field(&pong, 1, nonce);
    fl_send(link, FW_PONG, &pong, reply_to, NULL);
    fw_buffer_free(&pong);
}

void fl_send_fatal_error(fl_link *link, int code, const char *why, uint64_t reply_to) {
    fw_buffer error = {0};
    fw_put_varint_field(&error, 1, (uint64_t)code);
    fw_put_string_field(&error, 2, why);
    fw_put_varint_field(&error, 3, 1);
    fl_send(link, FW_ERROR, &error, reply_to, NULL);
    fw_buffer_free(&error);
}

void fl_send_shutdown(fl_link *link, const char *message) {
    fw_buffer shutdown = {0};
    fw_put_string_field(&shutdown, 2, message);
    fl_send(link, FW_SHUTDOWN, &shutdown, 0, NULL);
    fw_buffer_free(&shutdown);
}
