import FlowKit

/// How a screen of one kind comes to exist.
public enum ScreenFactory: Sendable, Equatable {
    /// An attached screen host (a process that connected to the named socket
    /// and listed the kind in `Hello.provides`) hosts it. Screens wait for
    /// such a host if none is connected yet.
    case attached
    /// The daemon spawns `executable` with `arguments` for each screen, hands
    /// it a connected socket as `FLOWD_SOCKET_FD` and a one-time `FLOWD_TOKEN`.
    /// Its environment is `environment` (set variables, names passed through from the daemon's) plus a
    /// small baseline (`Environment.baseline`) and the daemon's `FLOWD_*` variables, nothing else; its
    /// standard output and error are read by the daemon and logged, labelled with its pid and kind
    /// (docs/daemon.md, "Screen factories").
    /// A relative executable is looked up next to the running daemon's executable first (flowd, or a custom daemon), then in `PATH`.
    /// `restart` says what happens when the process crashes while its screen is shown
    /// (docs/restore.md): by default it is started again, at most 5 times in 10 s
    /// (`RestartPolicy.standard`); `.never` tells the flow the screen was lost at the first crash.
    /// `pool` keeps that many processes started and handshaken but idle (a warm pool, at most
    /// `SpawnPool.maxSize`): a new screen of the kind goes to one of them in one `Place`, and the
    /// pool refills in the background (docs/daemon.md, "Warm pools").
    case spawn(executable: String, arguments: [String] = [], environment: Environment = [:], restart: RestartPolicy = .standard,
               pool: Int = 0)
    /// Decided off the start-up path (e.g. probing an interpreter), on a
    /// background thread; resolved when the first screen of the kind is placed.
    case deferred(DeferredScreenFactory)

    /// The same factory with `policy` for a spawned process (a deferred one once it decided);
    /// attached screens are unchanged.
    public func restarting(_ policy: RestartPolicy) -> ScreenFactory {
        switch self {
        case .attached: self
        case .spawn(let executable, let arguments, let environment, _, let pool):
            .spawn(executable: executable, arguments: arguments, environment: environment, restart: policy, pool: pool)
        case .deferred(let deferred): .deferred(DeferredScreenFactory { deferred.factory.resolved.restarting(policy) })
        }
    }

    /// The same factory keeping a warm pool of `size` idle processes (a spawned one; a deferred one once
    /// it decided to spawn); attached screens are unchanged.
    public func pooled(_ size: Int) -> ScreenFactory {
        switch self {
        case .attached: self
        case .spawn(let executable, let arguments, let environment, let restart, _):
            .spawn(executable: executable, arguments: arguments, environment: environment, restart: restart, pool: size)
        case .deferred(let deferred): .deferred(DeferredScreenFactory { deferred.factory.resolved.pooled(size) })
        }
    }

    /// The warm pool's size of a spawned factory (0: none, or not spawned, or deferred and undecided).
    public var poolSize: Int {
        if case .spawn(_, _, _, _, let pool) = self { return pool }
        return 0
    }

    /// The factory to use now: a deferred one waits for its decision.
    public var resolved: ScreenFactory {
        if case .deferred(let deferred) = self { return deferred.factory.resolved }
        return self
    }
}
