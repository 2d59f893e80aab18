#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed socket call: which call, on which path, and errno; or a server this client refused
/// because another user runs it (`untrustedServer`).
public struct SocketError: Error, CustomStringConvertible, Equatable {
    /// The call that failed: "connect", "read", ...
    public var operation: String
    /// The socket path, when known.
    public var path: String?
    /// The errno value (`EPERM` for an untrusted server).
    public var code: Int32
    /// Who serves the socket, when the client refused it for that; nil for every other failure.
    public var untrustedServer: UntrustedServer?

    /// A server run by a user who is neither this one nor root: who it is, and who owns the socket's
    /// directory (what to remove, or whom to ask).
    public struct UntrustedServer: Equatable, Sendable {
        /// The uid the serving process runs as (`SO_PEERCRED`).
        public var uid: UInt32
        /// This process's uid.
        public var ours: UInt32
        /// The socket's directory.
        public var directory: String
        /// The uid owning the socket's directory (nil when it cannot be read).
        public var directoryOwner: UInt32?
    }

    /// A failure of `operation` on `path` with errno `code` (FlowControl reports file errors this way too).
    package init(operation: String, path: String?, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// The refusal of the server at `path`, which `server` describes.
    package init(path: String, untrustedServer server: UntrustedServer) {
        self.init(operation: "connect", path: path, code: EPERM)
        untrustedServer = server
    }

    /// True for a read that timed out.
    public var isTimeout: Bool { code == ETIMEDOUT }
    /// True when nothing listens on the path (or the path does not exist).
    public var isNoListener: Bool { untrustedServer == nil && (code == ECONNREFUSED || code == ENOENT) }
    /// True when the path is longer than a Unix socket address holds (`maxPathLength`).
    public var isPathTooLong: Bool { code == ENAMETOOLONG && path != nil }

    /// The longest path a Unix socket address holds (108 bytes of `sun_path` with the final NUL): 107.
    public static let maxPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// E.g. `connect /tmp/flowd.sock: Connection refused`, or, for an untrusted server, who runs it and
    /// what to do.
    public var description: String {
        if let server = untrustedServer, let path {
            let owner = server.directoryOwner.map { "uid \($0)" } ?? "an owner that cannot be read"
            return """
                refusing the server at \(path): it runs as uid \(server.uid), not as this user (uid \(server.ours)) or \
                root, and its directory \(server.directory) belongs to \(owner); another user may be posing as flowd, \
                so nothing was sent. Remove \(server.directory) if it is not yours (as its owner or root), or use a \
                socket in a directory of your own (--socket, FLOWD_SOCKET, or XDG_RUNTIME_DIR)
                """
        }
        if isPathTooLong, let path {
            // The words flowd says for the same path.
            return "socket path \(path) is \(path.utf8.count) bytes, longer than the \(Self.maxPathLength) bytes a Unix "
                + "socket address holds; choose a shorter path"
        }
        let reason = String(cString: strerror(code))
        if let path { return "\(operation) \(path): \(reason)" }
        return "\(operation): \(reason)"
    }
}
