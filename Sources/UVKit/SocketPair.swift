#if canImport(Glibc)
import Glibc
#endif

/// A connected pair of Unix stream sockets, to hand one end to a child process.
public enum SocketPair {
    /// Creates the pair (`socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC)`). Both ends are close-on-exec, so a
    /// child gets one only when it is passed explicitly (`UVProcess.spawn(inheritedDescriptors:)`).
    /// Open `parent` with `UVPipe.open(fd:)`; give `child` to `spawn`, which closes the parent's copy.
    public static func make() throws(UVError) -> (parent: Int32, child: Int32) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw UVError.posix(errno, "socketpair")
        }
        return (fds[0], fds[1])
    }
}
