import FlowJournal
import UVKit

/// Why the daemon could not start or had to stop. The message says what
/// happened, to what, and what to do; `exitCode` is what `flowd` exits with.
public struct DaemonError: Error, CustomStringConvertible {
    private enum Code {
        case alreadyRunning
        case cannotListen
        case loop
        case stateLocked
        case stateUnusable
        case stateUnsafe
        case serviceHandover
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
    /// already serves the socket, 73 the socket cannot be created, 70 a libuv failure, 74 the state
    /// file cannot be used, 75 another process holds the state file, 77 (EX_NOPERM) another user could
    /// change the state file (its directory is not private, or a link is planted next to it), 78
    /// (EX_CONFIG) what the service manager handed over is unusable (docs/service.md).
    public var exitCode: Int32 {
        switch code {
        case .alreadyRunning: 69
        case .cannotListen: 73
        case .loop: 70
        case .stateUnusable: 74
        case .stateLocked: 75
        case .stateUnsafe: 77
        case .serviceHandover: 78
        }
    }

    /// What the service manager passed (`LISTEN_FDS` and its socket) cannot be served.
    public var isServiceHandoverUnusable: Bool { code == .serviceHandover }

    /// The state file cannot be opened, created, moved aside or written (74), another process
    /// holds it (75), or another user could change it (77).
    static func state(_ error: JournalError) -> DaemonError {
        if case .locked = error { return DaemonError(.stateLocked, "\(error); stop the other flowd or give this one another --state") }
        if case .unsafe = error { return DaemonError(.stateUnsafe, "\(error); or give flowd another --state") }
        return DaemonError(.stateUnusable, "\(error); give another --state, or --no-state to run without one")
    }

    static func listen(_ error: ListenerError) -> DaemonError {
        if error.isPassedSocketUnusable { return DaemonError(.serviceHandover, error.description) }
        return DaemonError(error.isAlreadyRunning ? .alreadyRunning : .cannotListen, error.description)
    }

    static func serviceHandover(_ description: String) -> DaemonError {
        DaemonError(.serviceHandover, description)
    }

    static func loop(_ error: UVError, doing what: String) -> DaemonError {
        DaemonError(.loop, "libuv failed while \(what): \(error)")
    }
}
