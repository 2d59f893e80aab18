import FlowApp
import FlowDaemon
import FlowKit

/// Spawns `EmbeddedChild`ren: each gets a fake pipe adopted by the daemon as a spawned screen's
/// connection, with a deterministic token. Kinds in `failing` fail to spawn, as a missing
/// executable would.
final class EmbeddedSpawner: ScreenSpawner {
    private let loop: EmbeddedLoop
    /// The embedded daemon the children's connections belong to (set once it exists).
    weak var embedded: EmbeddedDaemon?
    /// Every child spawned, in order.
    private(set) var children: [EmbeddedChild] = []
    /// Kinds whose spawn fails.
    var failing: Set<String> = []

    init(loop: EmbeddedLoop) { self.loop = loop }

    struct SpawnFailed: Error, CustomStringConvertible {
        let kind: String
        var description: String { "spawning a screen of kind \(kind) failed (the test said so)" }
    }

    func spawn(screen: ScreenID?, kind: String, executable: String, arguments: [String], environment: FlowApp.ScreenFactory.Environment,
               socketPath: String, adopt: (any ConnectionPipe, _ token: String, _ pid: Int32) -> UInt64) throws -> any SpawnedHost {
        guard !failing.contains(kind), let embedded else { throw SpawnFailed(kind: kind) }
        let pid = Int32(10_000 + children.count)
        let token = "embedded-token-\(children.count + 1)"
        let pipe = EmbeddedPipe(loop: loop)
        let id = adopt(pipe, token, pid)
        let connection = EmbeddedConnection(id: id, pipe: pipe, daemon: embedded)
        let child = EmbeddedChild(pid: pid, connection: connection, screen: screen, kind: kind, executable: executable, token: token)
        children.append(child)
        return child
    }
}
