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
