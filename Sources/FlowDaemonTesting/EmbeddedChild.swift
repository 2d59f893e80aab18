import FlowDaemon
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
    /// Whether the daemon killed it.
    public private(set) var wasKilled = false
    /// Whether it exited (`exit()`).
    public private(set) var hasExited = false
    /// Whether it exited by a signal or a non-zero status (`crash()`).
    public private(set) var exitedAbnormally = false
    package var onExit: ((any SpawnedHost) -> Void)?

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

    package func connectionClosed() {}

    package func kill() { wasKilled = true }

    package func assign(_ screen: ScreenID) { self.screen = screen }

    /// The process exits with status 0 (the daemon reaps it and runs what that caused).
    public func exit() {
        guard !hasExited else { return }
        hasExited = true
        onExit?(self)
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
