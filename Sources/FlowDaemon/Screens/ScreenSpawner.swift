import FlowKit
import UVKit

/// A screen process the daemon spawned for one screen, as the daemon sees it.
package protocol SpawnedHost: AnyObject {
    /// The process id.
    var pid: Int32 { get }
    /// The id of the daemon's connection to it.
    var connectionID: UInt64 { get }
    /// Whether it exited by a signal or a non-zero status (once it exited).
    var exitedAbnormally: Bool { get }
    /// Runs once when the process has exited (and its handle is closed).
    var onExit: ((any SpawnedHost) -> Void)? { get set }
    /// Its screen is gone: say goodbye and make sure the process exits within the grace period.
    func retire(reason: String)
    /// Its connection closed first: the process should exit now; enforce it.
    func connectionClosed()
    /// Kills it at once.
    func kill()
    /// A pooled process (spawned without a screen) was given `screen`.
    func assign(_ screen: ScreenID)
}

/// Starts the process of a spawned screen with its connection adopted by the daemon: `uv_spawn` in
/// production, a fake child in the embedded daemon.
package protocol ScreenSpawner: AnyObject {
    /// Spawns `executable` for `screen` (nil: for the warm pool of `kind`, no screen yet) and returns
    /// it; throws if it cannot be started.
    func spawn(for daemon: Daemon, screen: ScreenID?, kind: String, executable: String, arguments: [String],
               environment: [String: String]) throws -> any SpawnedHost
}

/// Spawns real processes on the daemon's libuv loop.
final class UVScreenSpawner: ScreenSpawner {
    private let loop: UVLoop

    init(loop: UVLoop) { self.loop = loop }

    func spawn(for daemon: Daemon, screen: ScreenID?, kind: String, executable: String, arguments: [String],
               environment: [String: String]) throws -> any SpawnedHost {
        try SpawnedScreen.start(daemon: daemon, loop: loop, screen: screen, kind: kind, executable: executable,
                                arguments: arguments, environment: environment)
    }
}
