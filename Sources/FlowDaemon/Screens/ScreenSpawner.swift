import FlowApp
import FlowKit
import Logging
import UVKit

/// A screen process the daemon spawned for one screen, as the daemon sees it: the process only. When
/// it must exit and how hard it is pushed is the daemon's (`SpawnedProcesses`).
package protocol SpawnedHost: AnyObject {
    /// The process id.
    var pid: Int32 { get }
    /// The id of the daemon's connection to it.
    var connectionID: UInt64 { get }
    /// Its screen (nil while it waits in a warm pool).
    var screen: ScreenID? { get }
    /// Whether it exited by a signal or a non-zero status (once it exited).
    var exitedAbnormally: Bool { get }
    /// How it exited, for people: `status 0`, `signal 9` (once it exited).
    var exitDescription: String { get }
    /// Runs once when the process has exited (and its handle is closed).
    var onExit: ((any SpawnedHost) -> Void)? { get set }
    /// Its screen is gone and the daemon said goodbye on its connection: it should exit now.
    func retire(reason: String)
    /// Sends it `signal` (SIGTERM, SIGKILL); nothing once it exited.
    func send(_ signal: Int32)
    /// A pooled process (spawned without a screen) was given `screen`.
    func assign(_ screen: ScreenID)
}

/// Starts the process of a spawned screen with its connection adopted by the daemon: `uv_spawn` in
/// production, a fake child in the embedded daemon.
package protocol ScreenSpawner: AnyObject {
    /// Spawns `executable` for `screen` (nil: for the warm pool of `kind`, no screen yet), told the
    /// daemon's `socketPath`; its socket's daemon end is handed to `adopt` with the child's one-time
    /// token and pid, which returns the connection's id. Returns it; throws if it cannot be started
    /// (the daemon closes a connection adopted before the failure).
    func spawn(screen: ScreenID?, kind: String, executable: String, arguments: [String], environment: FlowApp.ScreenFactory.Environment,
               socketPath: String, adopt: (any ConnectionPipe, _ token: String, _ pid: Int32) -> UInt64) throws -> any SpawnedHost
}

/// Spawns real processes on the daemon's libuv loop; their output goes to `logger`, labelled as theirs.
final class UVScreenSpawner: ScreenSpawner {
    private let loop: UVLoop
    private let logger: Logger

    init(loop: UVLoop, logger: Logger) {
        self.loop = loop
        self.logger = logger
    }

    func spawn(screen: ScreenID?, kind: String, executable: String, arguments: [String], environment: FlowApp.ScreenFactory.Environment,
               socketPath: String, adopt: (any ConnectionPipe, _ token: String, _ pid: Int32) -> UInt64) throws -> any SpawnedHost {
        try SpawnedScreen.start(loop: loop, screen: screen, kind: kind, executable: executable, arguments: arguments,
                                environment: environment, socketPath: socketPath, logger: logger, adopt: adopt)
    }
}
