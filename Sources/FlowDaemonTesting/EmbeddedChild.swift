import FlowDaemon
import Foundation
import FlowKit

/// A screen process the embedded daemon "spawned": no process, a connection the test speaks for
/// (`connection`, with `token` to present in `Hello`), and a record of what the daemon did to it.
public final class EmbeddedChild: SpawnedHost {
    /// Its fake process id.
    public let pid: Int32
    /// The daemon's connection id.
    public let connectionID: UInt64
    /// The screen it was spawned for, or was given from the warm pool (nil while it waits there).
    public private(set) var screen: ScreenID?
    /// Whether it was spawned for the warm pool (without a screen).
    public let wasPooled: Bool
    /// The screen's kind.
    public let kind: String
    /// The executable the factory names.
    public let executable: String
    /// The one-time token the daemon expects in `Hello`.
    public let token: String
    /// The test's end of its connection.
    public let connection: EmbeddedConnection
    /// Why the daemon retired it, if it did.
    public private(set) var retiredBecause: String?
    /// The signals the daemon sent it, in order (SIGTERM once it outstayed its exit grace, SIGKILL).
    public private(set) var signals: [Int32] = []
    /// Whether the daemon killed it (SIGKILL).
    public var wasKilled: Bool { signals.contains(SIGKILL) }
    /// Whether it exited (`exit()`).
    public private(set) var hasExited = false
    /// Whether it exited by a signal or a non-zero status (`crash()`).
    public private(set) var exitedAbnormally = false
    package var onExit: ((any SpawnedHost) -> Void)?
    /// How it exited: `status 0` or `signal 9`.
    public var exitDescription: String { exitedAbnormally ? "signal 9" : "status 0" }

    init(pid: Int32, connection: EmbeddedConnection, screen: ScreenID?, kind: String, executable: String, token: String) {
        self.pid = pid
        self.connection = connection
        let connectionID = connection.id
        self.connectionID = connectionID
        self.screen = screen
        self.wasPooled = screen == nil
        self.kind = kind
        self.executable = executable
        self.token = token
    }

    package func retire(reason: String) { retiredBecause = reason }

    package func send(_ signal: Int32) {
        guard !hasExited else { return }
        signals.append(signal)
    }

    package func assign(_ screen: ScreenID) { self.screen = screen }

    /// The process exits with status 0 (the daemon reaps it and runs what that caused).
    public func exit() {
        guard !hasExited else { return }
        hasExited = true
        onExit?(self)
        onExit = nil
        connection.daemon.run()
    }

    /// The process dies abnormally (a signal or a non-zero status): its connection closes and the
    /// daemon reaps it.
    public func crash() {
        guard !hasExited else { return }
        exitedAbnormally = true
        connection.hangUp()
        exit()
    }
}
