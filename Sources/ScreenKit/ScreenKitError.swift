import FlowSocket
import FlowWire

/// What went wrong in a screen process: an `Error` frame from the daemon, or
/// a local failure (environment, socket, handshake, coding). A struct over a
/// code so that codes can be added later; switch on `code`.
public struct ScreenKitError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The daemon's error codes (docs/protocol.md §13), re-exported for matching `daemonCode`.
    public typealias DaemonCode = Flowd_V1_ErrorCode

    /// The category of an error.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case daemon, environment, connect, untrustedServer, handshake, socket, closed, reconnecting, protocolViolation
            case unknownKind, badState, encoding, usage
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The daemon sent an `Error` frame; see `daemonCode`, `isFatal`, `screenID`, `serial`.
        public static let daemon = Code(.daemon)
        /// `FLOWD_SOCKET_FD` / `FLOWD_TOKEN` are missing or malformed.
        public static let environment = Code(.environment)
        /// Connecting to the socket path failed (nothing listens, no permission, ...).
        public static let connect = Code(.connect)
        /// The socket is served by a process of another user (neither ours nor root): refused before
        /// anything was sent, and not dialled again (docs/protocol.md §1).
        public static let untrustedServer = Code(.untrustedServer)
        /// The handshake failed: no `Welcome` in time, or something else came first.
        public static let handshake = Code(.handshake)
        /// A read, write or poll on the socket failed.
        public static let socket = Code(.socket)
        /// The connection is closed or the session has ended; nothing can be sent.
        public static let closed = Code(.closed)
        /// The connection dropped and the host is reconnecting: nothing was sent. Not fatal; the
        /// screens come back once it has resumed (see `ReconnectPolicy`).
        public static let reconnecting = Code(.reconnecting)
        /// The daemon broke the protocol (a bad frame, a command for a screen never placed).
        public static let protocolViolation = Code(.protocolViolation)
        /// A `Place` named a kind no handler is registered for (refused with `UNKNOWN_KIND`).
        public static let unknownKind = Code(.unknownKind)
        /// A state payload did not decode as the module's `State` (refused with `BAD_PAYLOAD`).
        public static let badState = Code(.badState)
        /// An output could not be encoded, or its frame is over the negotiated size.
        public static let encoding = Code(.encoding)
        /// The API was used in a way it does not support.
        public static let usage = Code(.usage)

        /// The code's name, e.g. `daemon`.
        public var description: String { base.rawValue }
    }

    /// The category.
    public var code: Code
    /// What happened, to what, and what to do.
    public var message: String
    /// For `.daemon`: the wire code; nil otherwise.
    public var daemonCode: DaemonCode?
    /// True if the connection cannot go on (a fatal daemon error, a broken socket).
    public var isFatal: Bool
    /// The screen concerned, if any.
    public var screenID: UInt64?
    /// The command serial concerned, if any.
    public var serial: UInt64?

    /// An error from its parts.
    public init(
        _ code: Code, _ message: String, daemonCode: DaemonCode? = nil, isFatal: Bool = false,
        screenID: UInt64? = nil, serial: UInt64? = nil
    ) {
        self.code = code
        self.message = message
        self.daemonCode = daemonCode
        self.isFatal = isFatal
        self.screenID = screenID
        self.serial = serial
    }

    /// The error a daemon `Error` frame carries.
    public init(daemon error: Flowd_V1_Error) {
        self.init(
            .daemon, error.message, daemonCode: error.code, isFatal: error.fatal,
            screenID: error.screenID == 0 ? nil : error.screenID,
            serial: error.serial == 0 ? nil : error.serial)
    }

    /// E.g. `flowd error ACK_TIMEOUT (screen 7, serial 2): ...`.
    public var description: String {
        var subject: [String] = []
        if let screenID { subject.append("screen \(screenID)") }
        if let serial { subject.append("serial \(serial)") }
        let about = subject.isEmpty ? "" : " (\(subject.joined(separator: ", ")))"
        if code == .daemon, let daemonCode {
            let fatal = isFatal ? "fatal " : ""
            return "flowd \(fatal)error \(daemonCode)\(about): \(message)"
        }
        return "ScreenKit \(code) error\(about): \(message)"
    }
}

extension ScreenKitError {
    /// A socket failure while `doing` something.
    static func socket(_ error: SocketError, doing: String) -> ScreenKitError {
        ScreenKitError(.socket, "\(doing) failed: \(error); the connection to flowd is unusable", isFatal: true)
    }

    /// The connection dropped and the host is reconnecting; `what` could not be done.
    static func reconnecting(_ what: String) -> ScreenKitError {
        ScreenKitError(
            .reconnecting,
            "cannot \(what): the connection to flowd dropped and ScreenKit is reconnecting; nothing was sent "
                + "(the screens are placed again once it has resumed)")
    }

    /// The session is over; `what` could not be done.
    static func closed(_ what: String) -> ScreenKitError {
        ScreenKitError(.closed, "cannot \(what): the connection to flowd has ended", isFatal: true)
    }
}
