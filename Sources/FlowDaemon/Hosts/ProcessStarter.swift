import FlowApp
import FlowKit
#if canImport(Glibc)
import Glibc
#endif

/// Starts the screen processes of the app's spawn factories, with the spawner: a value that changes
/// nothing, so the core can run it while its `adopt` closure takes the new connection in. The process
/// is kept from then on by `Hosts` (`SpawnedProcesses`); what to spawn, restart or keep warm is
/// `ScreenDelivery`'s to decide.
struct ProcessStarter {
    /// What a spawn came to.
    enum Started {
        /// The process runs, on the connection the core adopted.
        case running(any SpawnedHost, Notice)
        /// Nothing runs: the kind has no spawn factory (nil notice), or the spawn failed.
        case failed(Notice?)
    }

    private let app: FlowApp.App?
    private let spawner: any ScreenSpawner

    init(app: FlowApp.App?, spawner: any ScreenSpawner) {
        self.app = app
        self.spawner = spawner
    }

    /// Starts a process of `kind` for `screen` (nil: for its warm pool), told `socketPath`; its
    /// socket's daemon end goes to `adopt`, which returns the connection's id. Changes nothing here:
    /// `Hosts` keeps a process that runs (`Hosts.started`).
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
}
