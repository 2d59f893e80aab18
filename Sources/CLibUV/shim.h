#ifndef FLOWD_CLIBUV_SHIM_H
#define FLOWD_CLIBUV_SHIM_H
#include <uv.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/types.h>

/// getsockopt(SO_PEERCRED) without needing `struct ucred` (which hides behind _GNU_SOURCE).
/// Returns 0 and fills pid/uid/gid, or -errno.
static inline int clibuv_peercred(int fd, int *pid, unsigned int *uid, unsigned int *gid) {
#ifdef SO_PEERCRED
    struct { int pid; unsigned int uid; unsigned int gid; } cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -errno;
    *pid = cred.pid; *uid = cred.uid; *gid = cred.gid;
    return 0;
#else
    (void)fd; (void)pid; (void)uid; (void)gid;
    return UV_ENOTSUP;
#endif
}

/// signal(SIGPIPE, SIG_IGN): SIG_IGN is a macro Swift cannot import. Returns 0 or -errno.
static inline int clibuv_ignore_sigpipe(void) {
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = SIG_IGN;
    return sigaction(SIGPIPE, &action, NULL) == 0 ? 0 : -errno;
}

#include <sys/syscall.h>
#include <unistd.h>

/// getsockopt(SO_PEERPIDFD): a pidfd for the process that connected (Linux 6.5+; 77 where the
/// headers predate it). Returns the new descriptor (close-on-exec), or -errno (-ENOPROTOOPT on an
/// older kernel: fall back to `clibuv_pidfd_open`).
static inline int clibuv_peerpidfd(int fd) {
#ifdef __linux__
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
    int pidfd = -1;
    socklen_t len = sizeof(pidfd);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) != 0) return -errno;
    return pidfd;
#else
    (void)fd;
    return -ENOPROTOOPT;
#endif
}

/// pidfd_open(pid, 0) by syscall (glibc before 2.36 has no wrapper). Returns the descriptor or -errno.
static inline int clibuv_pidfd_open(int pid) {
#if defined(__linux__) && defined(SYS_pidfd_open)
    long rc = syscall(SYS_pidfd_open, pid, 0);
    return rc < 0 ? -errno : (int)rc;
#else
    (void)pid;
    return -ENOSYS;
#endif
}

/// pidfd_send_signal(pidfd, 0, NULL, 0): 0 while the process the pidfd refers to is alive (not yet
/// reaped), -errno otherwise (-ESRCH once it exited).
static inline int clibuv_pidfd_alive(int pidfd) {
#if defined(__linux__) && defined(SYS_pidfd_send_signal)
    long rc = syscall(SYS_pidfd_send_signal, pidfd, 0, (void *)0, 0);
    return rc < 0 ? -errno : 0;
#else
    (void)pidfd;
    return -ENOSYS;
#endif
}

/// getsockopt(SO_PEERSEC): the peer's LSM label (SELinux context, AppArmor profile) into `buffer`.
/// Returns its length (without a trailing NUL), or -errno (-ENOPROTOOPT: no LSM labels sockets;
/// -ERANGE: longer than `size`).
static inline int clibuv_peersec(int fd, char *buffer, unsigned int size) {
#ifdef __linux__
#ifndef SO_PEERSEC
#define SO_PEERSEC 31
#endif
    socklen_t len = size;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERSEC, buffer, &len) != 0) return -errno;
    while (len > 0 && buffer[len - 1] == 0) len--;
    return (int)len;
#else
    (void)fd; (void)buffer; (void)size;
    return -ENOPROTOOPT;
#endif
}

/// prctl(PR_SET_NO_NEW_PRIVS, 1) on the calling thread: from now on an execve by this thread or a process it
/// forks cannot gain privileges (set-user-id, set-group-id, file capabilities). One-way; inherited over fork,
/// clone and execve. Returns 0 or -errno (UV_ENOTSUP where the kernel has no such switch).
static inline int clibuv_set_no_new_privs(void) {
#if defined(__linux__) && defined(PR_SET_NO_NEW_PRIVS)
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? 0 : -errno;
#else
    return UV_ENOTSUP;
#endif
}
#endif
