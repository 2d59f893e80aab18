#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking Unix stream socket with timeouts: for clients that do one thing
/// at a time (flowctl, screen hosts, tests). The daemon never uses it; it runs on libuv.
public final class UnixSocket {
    /// The descriptor; -1 once closed.
    public private(set) var descriptor: Int32

    /// Wraps an already-connected descriptor (e.g. one inherited from flowd).
    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close() }

    /// Connects to `path` and checks who serves it before anything is sent: a server run by another
    /// user than ours or root is refused (docs/protocol.md §1), with a `SocketError` whose
    /// `untrustedServer` says who. Throws `SocketError` with the errno of any other failure.
    public static func connect(path: String) throws(SocketError) -> UnixSocket {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count <= SocketError.maxPathLength else {
            throw SocketError(operation: "connect", path: path, code: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        #if canImport(Glibc)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw SocketError(operation: "socket", path: path, code: errno) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            _ = Glibc.close(fd)
            throw SocketError(operation: "connect", path: path, code: code)
        }
        let socket = UnixSocket(descriptor: fd)
        try socket.checkServer(path: path)
        return socket
    }

    /// Refuses (closing the socket) a server whose uid is neither ours nor root: another user who
    /// created the socket's directory first could otherwise read what we send and answer as flowd
    /// (ssh-agent's clients check the same).
    private func checkServer(path: String) throws(SocketError) {
        let ours = getuid()
        guard let uid = peerUID() else {
            let code = errno
            close()
            throw SocketError(operation: "read the server's credentials (SO_PEERCRED) of", path: path, code: code)
        }
        guard uid != ours, uid != 0 else { return }
        close()
        let directory = Self.parentDirectory(of: path)
        var status = stat()
        let owner = stat(directory, &status) == 0 ? UInt32(status.st_uid) : nil
        throw SocketError(path: path, untrustedServer: .init(uid: uid, ours: ours, directory: directory, directoryOwner: owner))
    }

    /// The uid of the process at the other end: of the server that listened, for a connected client
    /// (`getsockopt(SO_PEERCRED)`; `getpeereid` on Darwin). Nil if it cannot be read (errno says why).
    public func peerUID() -> UInt32? {
        #if canImport(Glibc)
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }, which Glibc hides behind _GNU_SOURCE.
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        return credentials.uid
        #else
        var uid = uid_t(), gid = gid_t()
        guard getpeereid(descriptor, &uid, &gid) == 0 else { return nil }
        return uid
        #endif
    }

    /// The directory part of `path` (`.` for a bare name, `/` for a file in the root).
    static func parentDirectory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        if slash == path.utf8.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// Writes all of `bytes`, blocking as needed.
    public func write(_ bytes: [UInt8]) throws(SocketError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw SocketError(operation: "write", path: nil, code: errno)
            }
            offset += written
        }
    }

    /// Reads what is available, waiting at most `timeoutMilliseconds` (-1: forever).
    /// Returns an empty array at end of stream; throws `ETIMEDOUT` on timeout.
    public func read(maxBytes: Int = 65_536, timeoutMilliseconds: Int32) throws(SocketError) -> [UInt8] {
        try waitReadable(timeoutMilliseconds: timeoutMilliseconds)
        var buffer = [UInt8](repeating: 0, count: maxBytes)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress!, maxBytes, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SocketError(operation: "read", path: nil, code: errno)
            }
            buffer.removeSubrange(count...)
            return buffer
        }
    }

    private func waitReadable(timeoutMilliseconds: Int32) throws(SocketError) {
        var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&pollDescriptor, 1, timeoutMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { throw SocketError(operation: "poll", path: nil, code: errno) }
            if ready == 0 { throw SocketError(operation: "read", path: nil, code: ETIMEDOUT) }
            return
        }
    }

    /// Closes the descriptor; safe to call twice.
    public func close() {
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }
}
