import CLibUV

/// A libuv (or POSIX) error code with the name of the call that failed.
///
/// Codes are libuv's negative errno values (`UV_EPIPE` == `-EPIPE` on Unix). Two errors are equal when their
/// codes are equal, whatever the function, so `error == .eof` reads naturally.
public struct UVError: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The negative libuv error code, e.g. `UV_ECONNREFUSED`.
    public let rawValue: Int32
    /// The libuv or POSIX call that failed, e.g. `"uv_pipe_bind"`; empty for the named constants.
    public let function: String

    /// An error with `rawValue` and no function name (for comparisons and constants).
    public init(rawValue: Int32) {
        self.rawValue = rawValue
        self.function = ""
    }

    /// An error returned by `function`.
    public init(_ rawValue: Int32, function: String) {
        self.rawValue = rawValue
        self.function = function
    }

    /// An error from a POSIX call that set `errno` (converted to libuv's negative convention).
    public static func posix(_ errnoValue: Int32, _ function: String) -> UVError {
        UVError(-errnoValue, function: function)
    }

    /// The short symbolic name, e.g. `"ECONNREFUSED"` (`uv_err_name`).
    public var name: String { String(cString: uv_err_name(rawValue)) }

    /// The human-readable message, e.g. `"connection refused"` (`uv_strerror`).
    public var message: String { String(cString: uv_strerror(rawValue)) }

    /// `"uv_pipe_bind failed: address already in use (EADDRINUSE)"`.
    public var description: String {
        function.isEmpty ? "\(message) (\(name))" : "\(function) failed: \(message) (\(name))"
    }

    public static func == (lhs: UVError, rhs: UVError) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

extension UVError {
    /// EADDRINUSE.
    public static let addressInUse = UVError(rawValue: UV_EADDRINUSE.rawValue)
    /// ECONNREFUSED: nothing listens on the socket.
    public static let connectionRefused = UVError(rawValue: UV_ECONNREFUSED.rawValue)
    /// ECONNRESET: the peer reset the connection.
    public static let connectionReset = UVError(rawValue: UV_ECONNRESET.rawValue)
    /// ENOENT: no such file or directory.
    public static let noEntry = UVError(rawValue: UV_ENOENT.rawValue)
    /// EPIPE: the peer closed its end.
    public static let brokenPipe = UVError(rawValue: UV_EPIPE.rawValue)
    /// UV_EOF: end of stream.
    public static let eof = UVError(rawValue: UV_EOF.rawValue)
    /// ECANCELED: the request was cancelled because its handle was closed.
    public static let canceled = UVError(rawValue: UV_ECANCELED.rawValue)
    /// EAGAIN: try again later.
    public static let again = UVError(rawValue: UV_EAGAIN.rawValue)
    /// EBADF.
    public static let badFileDescriptor = UVError(rawValue: UV_EBADF.rawValue)
    /// ETIMEDOUT.
    public static let timedOut = UVError(rawValue: UV_ETIMEDOUT.rawValue)
    /// EBUSY: e.g. `uv_loop_close` with handles still open.
    public static let busy = UVError(rawValue: UV_EBUSY.rawValue)
    /// EACCES: permission denied.
    public static let permissionDenied = UVError(rawValue: UV_EACCES.rawValue)
    /// ENOTCONN: the stream is not connected (or no longer readable/writable).
    public static let notConnected = UVError(rawValue: UV_ENOTCONN.rawValue)
    /// ENAMETOOLONG: a socket path longer than `sun_path` allows.
    public static let nameTooLong = UVError(rawValue: UV_ENAMETOOLONG.rawValue)
    /// ESRCH: no such process.
    public static let noSuchProcess = UVError(rawValue: UV_ESRCH.rawValue)
    /// EMFILE: too many open files.
    public static let tooManyOpenFiles = UVError(rawValue: UV_EMFILE.rawValue)
    /// EINVAL.
    public static let invalidArgument = UVError(rawValue: UV_EINVAL.rawValue)
}
