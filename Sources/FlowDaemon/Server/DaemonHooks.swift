import FlowKit

/// What `DaemonCore` asks of the `Daemon` around it, as closures the daemon sets once. A step of the
/// core calls them while it holds its one access to the core, so none of them may touch the core:
/// each installs a callback that enters the daemon later (a read, a timer, a wake-up, an exit, a
/// work result) or acts on the daemon's own handles (the listener, the signals, the loop).
struct DaemonHooks {
    /// Starts reading a new connection; its reads and its close enter the daemon.
    var register: (Connection) -> Void = { _ in }
    /// What the loop's deadline timer runs (`DaemonCore.deadlineFired`).
    var deadlineFired: () -> Void = {}
    /// What the loop's wake-up runs (`DaemonCore.woke`).
    var woke: () -> Void = {}
    /// Watches a spawned process of `kind`: its exit enters the daemon (`DaemonCore.childExited`).
    var watchExit: (any SpawnedHost, _ kind: String) -> Void = { _, _ in }
    /// Carries a flow's work result from another thread back to the daemon on its loop.
    var workFinished: @Sendable (ExternalWorkResult, any LoopInbox) -> Void = { _, _ in }
    /// Stops accepting connections (the shutdown began).
    var stopListening: () -> Void = {}
    /// The shutdown finished: the loop stops and the signal handles close.
    var finished: () -> Void = {}
}
