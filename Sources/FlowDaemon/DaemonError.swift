import UVKit

/// Why the daemon could not start or had to stop. The message says what
/// happened, to what, and what to do; `exitCode` is what `flowd` exits with.
public struct DaemonError: Error, CustomStringConvertible {
    private enum Code {
        case alreadyRunning
        case cannotListen
        case loop
    }

    private let code: Code
    /// The full, user-facing message.
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// Another daemon holds the socket's lock or answers on it.
    public var isAlreadyRunning: Bool { code == .alreadyRunning }

    /// The process exit code for this error (sysexits.h): 69 another daemon
    /// already serves the socket, 73 the socket cannot be created, 70 a libuv failure.
    public var exitCode: Int32 {
        switch code {
        case .alreadyRunning: 69
        case .cannotListen: 73
        case .loop: 70
        }
    }

    static func listen(_ error: ListenerError) -> DaemonError {
        DaemonError(error.isAlreadyRunning ? .alreadyRunning : .cannotListen, error.description)
    }

    static func loop(_ error: UVError, doing what: String) -> DaemonError {
        DaemonError(.loop, "libuv failed while \(what): \(error)")
    }
}
