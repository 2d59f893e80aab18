#if canImport(Glibc)
import Glibc
#endif

/// A listening socket handed to the process by its service manager (systemd's socket activation, the
/// `sd_listen_fds` protocol), checked before it is served: an open `AF_UNIX` `SOCK_STREAM` socket in
/// the listening state. Serve it with `UnixSocketListener.listen(loop:passed:onConnection:)`.
public struct PassedSocket: Hashable, Sendable {
    /// The descriptor (3 for the first socket systemd passes).
    public let descriptor: Int32
    /// The address it is bound to (`getsockname`): a path, `@name` in the abstract namespace, or empty when it
    /// has none.
    public let path: String

    /// Checks that `descriptor` is a listening Unix stream socket (`fstat`, `getsockopt(SO_DOMAIN, SO_TYPE,
    /// SO_ACCEPTCONN)`), reads its address (`getsockname`) and sets `FD_CLOEXEC` on it, so processes spawned later
    /// do not inherit it. Throws a `ListenerError` naming what the descriptor is instead.
    public static func inspect(descriptor: Int32) throws(ListenerError) -> PassedSocket {
        func refuse(_ problem: String) -> ListenerError {
            ListenerError(.passedSocketUnusable(descriptor: descriptor, problem: problem), path: "")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw refuse(errno == EBADF ? "is not open" : "cannot be inspected: \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFSOCK else {
            throw refuse("is \(fileTypeName(status.st_mode)), not a socket")
        }
        let family = socketOption(descriptor, SO_DOMAIN)
        guard family == AF_UNIX else {
            throw refuse("is \(family == AF_INET ? "an AF_INET" : family == AF_INET6 ? "an AF_INET6" : "a family \(family ?? -1)") socket, not a Unix-domain (AF_UNIX) one")
        }
        let type = socketOption(descriptor, SO_TYPE)
        guard type == Int32(SOCK_STREAM.rawValue) else {
            let name = type == Int32(SOCK_DGRAM.rawValue) ? "a datagram (SOCK_DGRAM)"
                : type == Int32(SOCK_SEQPACKET.rawValue) ? "a SOCK_SEQPACKET" : "a type \(type ?? -1)"
            throw refuse("is \(name) socket, not a stream (SOCK_STREAM) one")
        }
        guard socketOption(descriptor, SO_ACCEPTCONN) == 1 else {
            throw refuse("is a Unix stream socket that is not listening (a connection, or listen(2) was never called)")
        }
        _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
        return PassedSocket(descriptor: descriptor, path: boundPath(descriptor))
    }

    private static func socketOption(_ descriptor: Int32, _ option: Int32) -> Int32? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(descriptor, SOL_SOCKET, option, &value, &length) == 0 ? value : nil
    }

    /// The socket's own address: its path, `@name` for an abstract one, empty for none.
    private static func boundPath(_ descriptor: Int32) -> String {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let rc = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        let header = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        guard rc == 0, Int(length) > header else { return "" }
        let bytes = withUnsafeBytes(of: address.sun_path) { Array($0.prefix(Int(length) - header)) }
        if bytes.first == 0 { return "@" + String(decoding: bytes.dropFirst(), as: UTF8.self) }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    private static func fileTypeName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a directory"
        case S_IFIFO: "a pipe"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "a file of mode \(String(mode, radix: 8))"
        }
    }
}
