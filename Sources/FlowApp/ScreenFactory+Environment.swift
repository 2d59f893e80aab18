extension ScreenFactory {
    /// What a spawned screen's environment holds besides the daemon's own `FLOWD_*` variables: the
    /// variables its factory sets, the names it passes through from the daemon's environment, and the
    /// few every process needs (`baseline`). Nothing else of the daemon's environment reaches it (no
    /// secret the daemon was started with, no `NOTIFY_SOCKET` or `LISTEN_FDS` of its service manager).
    ///
    /// A dictionary literal sets variables, so `.spawn(executable: "x", environment: ["MODE": "kiosk"])`
    /// reads as before; `.inherit([...])` and `inheriting(_:)` pass names through:
    ///
    /// ```swift
    /// "camera": .spawn(executable: "camera-screen", environment: .inherit(Environment.graphicalSession))
    /// "item": .spawn(executable: "item-screen", environment: ["MODE": "kiosk"].inheriting(["DISPLAY"]))
    /// ```
    public struct Environment: Sendable, Hashable, ExpressibleByDictionaryLiteral {
        /// Variables set to these values (over an inherited or baseline one of the same name).
        public var set: [String: String]
        /// Names copied from the daemon's environment when the daemon has them (absent ones stay absent).
        public var inherit: [String]

        /// Nothing set, nothing passed through: the baseline and the daemon's variables only.
        public init() { self.init([:]) }

        /// `set` and `inherit` as given.
        public init(_ set: [String: String], inherit: [String] = []) {
            self.set = set
            self.inherit = inherit
        }

        /// Sets the literal's variables.
        public init(dictionaryLiteral elements: (String, String)...) {
            self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
        }

        /// Passes `names` through from the daemon's environment, sets nothing.
        public static func inherit(_ names: [String]) -> Environment { Environment([:], inherit: names) }

        /// The same environment passing `names` through too.
        public func inheriting(_ names: [String]) -> Environment {
            Environment(set, inherit: inherit + names.filter { !inherit.contains($0) })
        }

        /// What every spawned screen gets from the daemon's environment, when the daemon has it: the
        /// command search path, the home directory, the temporary directory, the time zone and the
        /// locale (`LANG`, `LANGUAGE` and every `LC_*`, in `baselinePrefixes`). Without them an
        /// interpreter cannot be found (`python3`), text is decoded as ASCII, and files land elsewhere.
        public static let baseline = ["PATH", "HOME", "TMPDIR", "TZ", "LANG", "LANGUAGE"]
        /// Prefixes of names passed through like `baseline`: the locale's categories.
        public static let baselinePrefixes = ["LC_"]
        /// What a GUI screen needs to reach the user's display (Wayland or X11); not passed unless a
        /// factory inherits it, since the display is a capability (a screenshot, keystrokes on X11).
        public static let graphicalSession = ["WAYLAND_DISPLAY", "DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR"]

        /// The child's environment drawn from the daemon's `environment`: the baseline, then the
        /// inherited names, then the set variables (the daemon adds its `FLOWD_*` variables over these).
        package func resolved(from environment: [String: String]) -> [String: String] {
            var child: [String: String] = [:]
            for (name, value) in environment
            where Self.baseline.contains(name) || Self.baselinePrefixes.contains(where: { name.hasPrefix($0) }) || inherit.contains(name) {
                child[name] = value
            }
            child.merge(set) { _, new in new }
            return child
        }
    }

    /// The same factory passing `names` through from the daemon's environment too (a spawned one; a
    /// deferred one once it decided to spawn); attached screens are unchanged. `flowd --screen-env`
    /// applies it to every kind.
    public func inheriting(_ names: [String]) -> ScreenFactory {
        switch self {
        case .attached: self
        case .spawn(let executable, let arguments, let environment, let restart, let pool):
            .spawn(executable: executable, arguments: arguments, environment: environment.inheriting(names), restart: restart, pool: pool)
        case .deferred(let deferred): .deferred(DeferredScreenFactory { deferred.factory.resolved.inheriting(names) })
        }
    }
}
