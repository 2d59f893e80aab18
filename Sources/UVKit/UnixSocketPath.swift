#if canImport(Glibc)
import Glibc
#endif

/// Helpers for Unix-domain socket paths, shared by the listener and clients.
public enum UnixSocketPath {
    /// The longest path that fits in `sockaddr_un.sun_path` (108 bytes with the terminating NUL).
    public static let maxLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// The directory part of `path` (`"."` for a bare name, `"/"` for a file in the root).
    static func parentDirectory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        if slash == path.utf8.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// What a connection attempt to an existing socket file says about it.
    enum ProbeResult { case listening, stale, failed(Int32) }

    /// Connects to `path` with a plain non-blocking socket to learn whether something listens there.
    static func probe(_ path: String) -> ProbeResult {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .failed(errno) }
        defer { Glibc.close(fd) }
        let rc = withSocketAddress(path) { address, length in Glibc.connect(fd, address, length) }
        if rc == 0 { return .listening }
        switch errno {
        case EAGAIN, EINPROGRESS: return .listening  // backlog full: alive, just busy
        case ECONNREFUSED, ENOENT: return .stale
        default: return .failed(errno)
        }
    }

    /// Calls `body` with a `sockaddr_un` for `path` (which must fit, see `maxLength`).
    static func withSocketAddress<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        precondition(bytes.count <= maxLength, "socket path too long: \(path)")
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}
