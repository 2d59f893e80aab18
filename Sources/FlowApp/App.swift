import FlowKit

/// An app flowd can run: a root flow, the placer it starts with, and how
/// each screen kind it uses is created. Build one and hand it to
/// `Daemon(configuration:app:logger:)`; see docs/daemon.md for a complete
/// custom daemon in a few lines.
public struct App {
    /// The app's name, reported in `Welcome` and `flowctl tree`.
    public let name: String
    /// The app's version, kept in its journal: a journal written by another version is not replayed
    /// (its flows may decide differently), it is moved aside and the app starts fresh. Change it
    /// whenever a flow's decisions change.
    public var version: String
    /// Screen kinds the app uses and how each is created. Kinds not listed
    /// here default to `.attached`.
    public var screens: [String: ScreenFactory]
    /// The screen modules the app's flows show: their contracts (`State`, `Output`, examples) are what
    /// `flowd describe` and `flowctl describe` list, so that a host in any language can be written
    /// from them. Kinds without a module here are listed without a contract.
    public var modules: [any ScreenModule.Type]
    /// Attached kinds whose screens are lost with their host when it leaves for good (the flow is
    /// told `screenLost`). Every other attached screen waits for the next host that provides its
    /// kind and is placed there again with its current state (docs/restore.md).
    public var kindsLostWithTheirHost: Set<String> = []
    /// Who may provide which kinds, open links, take the debug role, and who gets a held screen's
    /// saved state. The default admits every peer the socket admits (the daemon's user), as flowd
    /// always did; a file (`/etc/flowd/APP.policy`, `flowd --policy`) replaces it (docs/daemon.md,
    /// "Who may do what").
    public var policy: AppPolicy = .sameUser
    /// Starts the root flow on a runtime (`FlowRuntime.startRoot`: what it reports comes out as
    /// `RuntimeEffect.root`); the daemon's entry point.
    package let start: (FlowRuntime) -> Void

    /// An app whose root flow `makeRoot()` starts with `placer`; when it
    /// finishes, its UI is dismissed without animation and the app is over.
    public init<F: Flow>(
        name: String,
        version: String = "1",
        screens: [String: ScreenFactory] = [:],
        modules: [any ScreenModule.Type] = [],
        placer: ScreenPlacer<F.RequiredContext>,
        root makeRoot: @escaping () -> F
    ) {
        self.name = name
        self.version = version
        self.screens = screens
        self.modules = modules
        self.start = { runtime in runtime.startRoot(makeRoot(), placer) }
    }

    /// The factory for `kind`.
    public func factory(for kind: String) -> ScreenFactory {
        screens[kind] ?? .attached
    }

    /// Every kind the app names, in `screens` or `modules`, sorted.
    public var kinds: [String] { Set(screens.keys).union(modules.map { $0.kind }).sorted() }

    /// The same app with every screen created by `factory` (e.g. all spawned).
    public func withAllScreens(_ factory: ScreenFactory, kinds: [String]) -> App {
        var copy = self
        for kind in kinds { copy.screens[kind] = factory }
        return copy
    }

    /// The app with a warm pool of `size` idle processes for every spawned kind (docs/daemon.md).
    public func withSpawnPool(_ size: Int) -> App {
        var copy = self
        for (kind, factory) in screens { copy.screens[kind] = factory.pooled(size) }
        return copy
    }

    /// The app with the screens of `kinds` lost with their attached host when it leaves for good,
    /// instead of waiting for the next host of their kind.
    public func losingScreensWithTheirHost(_ kinds: Set<String>) -> App {
        var copy = self
        copy.kindsLostWithTheirHost.formUnion(kinds)
        return copy
    }

    /// The app with every spawned kind's process given `names` from the daemon's environment too
    /// (`ScreenFactory.inheriting`; `flowd --screen-env`).
    public func withInheritedEnvironment(_ names: [String]) -> App {
        var copy = self
        for (kind, factory) in screens { copy.screens[kind] = factory.inheriting(names) }
        return copy
    }

    /// The app with every spawned kind restarted by `policy` when its process crashes.
    public func withRestartPolicy(_ policy: RestartPolicy) -> App {
        var copy = self
        for (kind, factory) in screens { copy.screens[kind] = factory.restarting(policy) }
        return copy
    }

    /// The app with `policy` instead of its own (`AppPolicy(parsing:source:)` reads one from a file).
    public func withPolicy(_ policy: AppPolicy) -> App {
        var copy = self
        copy.policy = policy
        return copy
    }
}
