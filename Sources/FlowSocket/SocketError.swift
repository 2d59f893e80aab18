#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed socket call: which call, on which path, and errno.
public struct SocketError: Error, CustomStringConvertible, Equatable {
    /// The call that failed: "connect", "read", ...
    public var operation: String
    /// The socket path, when known.
    public var path: String?
    /// The errno value.
    public var code: Int32

    /// A failure of `operation` on `path` with errno `code` (FlowControl reports file errors this way too).
    package init(operation: String, path: String?, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// True for a read that timed out.
    public var isTimeout: Bool { code == ETIMEDOUT }
    /// True when nothing listens on the path (or the path does not exist).
    public var isNoListener: Bool { code == ECONNREFUSED || code == ENOENT }

    /// E.g. `connect /tmp/flowd.sock: Connection refused`.
    public var description: String {
        let reason = String(cString: strerror(code))
        if let path { return "\(operation) \(path): \(reason)" }
        return "\(operation): \(reason)"
    }
}
