import FlowApp
import FlowKit
#if canImport(Glibc)
import Glibc
#endif

/// The screen processes flowd starts, as one part: the app's spawn factories and the spawner, and
/// every process from its spawn to its reaping (and the exit grace of those that must go). It starts a process for a screen or a pool, and words what became of
/// it; the new process's connection is adopted by the core, through the `adopt` it is given. What
/// to spawn, restart or keep warm is `ScreenDelivery`'s to decide.
struct ScreenProcesses {
    /// What a spawn came to.
    enum Started {
        /// The process runs, on the connection the core adopted.
        case running(any SpawnedHost, Notice)
        /// Nothing runs: the kind has no spawn factory (nil notice), or the spawn failed.
        case failed(Notice?)
    }

    private let app: FlowApp.App?
    private let spawner: any ScreenSpawner
    /// Live processes, and the exit grace of those that must go.
    var spawned: SpawnedProcesses

    init(app: FlowApp.App?, spawner: any ScreenSpawner, exitGrace: UInt64) {
        self.app = app
        self.spawner = spawner
        spawned = SpawnedProcesses(grace: exitGrace)
    }

    /// Starts a process of `kind` for `screen` (nil: for its warm pool), told `socketPath`; its
    /// socket's daemon end goes to `adopt`, which returns the connection's id. Changes nothing here:
    /// the core keeps a process that runs with `keep`.
    func start(screen: ScreenID?, kind: String, socketPath: String,
               adopt: (any ConnectionPipe, _ token: String, _ pid: Int32) -> UInt64) -> Started {
        guard let app, case .spawn(let executable, let arguments, let environment, _, _) = app.factory(for: kind).resolved else {
            return .failed(nil)
        }
        let child: any SpawnedHost
        do {
            child = try spawner.spawn(screen: screen, kind: kind, executable: executable, arguments: arguments, environment: environment,
                                      socketPath: socketPath, adopt: adopt)
        } catch {
            return .failed(Notice(.error, screen == nil ? "cannot spawn a pooled screen process" : "cannot spawn a screen", [
                "screen": "\(screen.map { "\($0)" } ?? "none (pooled)")", "kind": "\(kind)", "error": "\(error)",
            ]))
        }
        return .running(child, Notice(.info, screen == nil ? "spawned a pooled screen process" : "spawned screen process", [
            "screen": "\(screen.map { "\($0)" } ?? "none (pooled)")", "kind": "\(kind)", "pid": "\(child.pid)", "connection": "\(child.connectionID)",
        ], event: .init(kind: .processSpawned, screen: screen, connection: child.connectionID, name: kind,
                        text: "spawned \(executable) pid \(child.pid) for \(screen.map { "\(kind) \($0)" } ?? "the pool of \(kind)")")))
    }

    /// Keeps a process that `start` started, until it exits.
    mutating func keep(_ child: any SpawnedHost) { spawned.adopt(child) }

    /// A process of `kind` exited (its handle is closed): it is forgotten.
    mutating func exited(_ child: any SpawnedHost, kind: String) -> Notice {
        spawned.exited(child)
        return Notice(.info, "screen process exited", ["pid": "\(child.pid)", "kind": "\(kind)", "how": "\(child.exitDescription)"],
                      event: .init(kind: .processExited, screen: child.screen, connection: child.connectionID, name: kind,
                                   text: "pid \(child.pid) (\(kind)) exited with \(child.exitDescription)"))
    }

    /// The process on connection `host` is no longer needed (`reason`): it is told, and must exit
    /// within the grace.
    mutating func retire(connection host: UInt64, reason: String, now: UInt64) {
        spawned[connection: host]?.retire(reason: reason)
        spawned.mustExit(connection: host, now: now)
    }

    /// When the next process that outstays its reason to exit is signalled.
    var nextDeadline: UInt64? { spawned.nextDeadline }

    /// Processes that outstayed their reason to exit, signalled as is due at `now` (SIGTERM, then SIGKILL).
    mutating func signalOutstaying(now: UInt64) -> [Notice] {
        spawned.expire(now: now).map { child, signal in
            child.send(signal)
            return Notice(.warning, "screen process outstays its screen; sending \(signal == SIGTERM ? "SIGTERM" : "SIGKILL")", [
                "pid": "\(child.pid)", "connection": "\(child.connectionID)",
            ])
        }
    }
}
