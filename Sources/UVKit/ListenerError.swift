#if canImport(Glibc)
import Glibc
#endif

/// Why `UnixSocketListener.listen` refused to serve a path. The description says what happened, to which path,
/// and what to do; the `is...` properties let a daemon map it to an exit code.
public struct ListenerError: Error, CustomStringConvertible, Sendable {
    enum Code: Sendable {
        case pathTooLong(length: Int)
        case directoryUnusable(errno: Int32, creating: Bool)
        case notADirectory
        case directoryNotOwned(owner: UInt32)
        case directoryWritableByOthers(mode: UInt32)
        case lockFailed(errno: Int32)
        case lockHeld(pid: Int32?)
        case socketInUse
        case notASocket
        case staleCheckFailed(errno: Int32)
        case passedSocketUnusable(descriptor: Int32, problem: String)
        case system(UVError)
    }

    let code: Code
    /// The socket path that was asked for.
    public let path: String

    init(_ code: Code, path: String) {
        self.code = code
        self.path = path
    }

    /// Another server already serves this path (its lock is held, or something answers on the socket).
    public var isAlreadyRunning: Bool {
        switch code {
        case .lockHeld, .socketInUse: true
        default: false
        }
    }

    /// The path is longer than a Unix socket address can hold.
    public var isPathTooLong: Bool {
        if case .pathTooLong = code { true } else { false }
    }

    /// The socket's directory is missing and cannot be created, or is not private to us.
    public var isUnsafeDirectory: Bool {
        switch code {
        case .directoryUnusable, .notADirectory, .directoryNotOwned, .directoryWritableByOthers: true
        default: false
        }
    }

    /// The descriptor a service manager passed is not a listening Unix stream socket (`PassedSocket.inspect`).
    public var isPassedSocketUnusable: Bool {
        if case .passedSocketUnusable = code { true } else { false }
    }

    /// The pid recorded in the lock file by the server holding it, when known.
    public var lockHolderPID: Int32? {
        if case .lockHeld(let pid) = code { pid } else { nil }
    }

    /// The libuv error behind a failed bind or listen, if that is what happened.
    public var underlyingError: UVError? {
        if case .system(let error) = code { error } else { nil }
    }

    public var description: String {
        let directory = UnixSocketPath.parentDirectory(of: path)
        switch code {
        case .pathTooLong(let length):
            return "socket path \(path) is \(length) bytes, longer than the \(UnixSocketPath.maxLength) bytes a Unix "
                + "socket address holds; choose a shorter path"
        case .directoryUnusable(let errnoValue, let creating):
            return "cannot \(creating ? "create" : "inspect") socket directory \(directory): \(errorText(errnoValue)); "
                + "create it with mode 0700 or choose another path"
        case .notADirectory:
            return "socket directory \(directory) exists but is not a directory (or is a symbolic link); "
                + "remove it or choose another path"
        case .directoryNotOwned(let owner):
            return "socket directory \(directory) belongs to uid \(owner), not to us (uid \(getuid())); "
                + "use a private directory of your own, e.g. \(privatePath) (created with mode 0700)"
        case .directoryWritableByOthers(let mode):
            return "socket directory \(directory) has mode \(String(mode & 0o7777, radix: 8)) and is writable by "
                + "group or others; use a private subdirectory, e.g. \(privatePath) (created with mode 0700)"
        case .lockFailed(let errnoValue):
            return "cannot take the lock \(path).lock: \(errorText(errnoValue)); check the directory's permissions"
        case .lockHeld(let pid):
            let holder = pid.map { " held by pid \($0)" } ?? " held"
            return "another flowd is already serving \(path) (lock \(path).lock\(holder)); "
                + "stop it first or choose another socket path"
        case .socketInUse:
            return "another process is already listening on \(path) (it answered a connection) though it holds no "
                + "lock; stop it first or choose another socket path"
        case .notASocket:
            return "\(path) exists and is not a socket; remove it or choose another path"
        case .staleCheckFailed(let errnoValue):
            return "cannot check whether the existing socket \(path) is stale: \(errorText(errnoValue)); "
                + "remove it if no server uses it"
        case .passedSocketUnusable(let descriptor, let problem):
            return "descriptor \(descriptor), passed by the service manager (LISTEN_FDS), \(problem); it must pass one "
                + "listening Unix stream socket (systemd: ListenStream=PATH in the .socket unit)"
        case .system(let error):
            return "cannot listen on \(path): \(error); check the path and its directory"
        }
    }

    /// The same socket name in a subdirectory of this user's own, beside the refused directory (flowd's
    /// default `/tmp/flowd-<uid>` when the refused directory is `/tmp`).
    private var privatePath: String {
        let directory = UnixSocketPath.parentDirectory(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? "flowd.sock"
        return (directory == "/" ? "" : directory) + "/flowd-\(getuid())/" + name
    }

    private func errorText(_ errnoValue: Int32) -> String { String(cString: strerror(errnoValue)) }
}
