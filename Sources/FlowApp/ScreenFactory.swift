/// How a screen of one kind comes to exist.
public enum ScreenFactory: Sendable, Equatable {
    /// An attached screen host (a process that connected to the named socket
    /// and listed the kind in `Hello.provides`) hosts it. Screens wait for
    /// such a host if none is connected yet.
    case attached
    /// The daemon spawns `executable` with `arguments` for each screen, hands
    /// it a connected socket as `FLOWD_SOCKET_FD` and a one-time `FLOWD_TOKEN`.
    /// A relative executable is looked up next to the flowd binary first, then in `PATH`.
    case spawn(executable: String, arguments: [String] = [], environment: [String: String] = [:])
    /// Decided off the start-up path (e.g. probing an interpreter), on a
    /// background thread; resolved when the first screen of the kind is placed.
    case deferred(DeferredScreenFactory)

    /// The factory to use now: a deferred one waits for its decision.
    public var resolved: ScreenFactory {
        if case .deferred(let deferred) = self { return deferred.factory.resolved }
        return self
    }
}
