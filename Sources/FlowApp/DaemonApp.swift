import FlowKit

/// One app a daemon executable can run (`--app NAME`), as `--list-apps` shows it.
public struct DaemonApp: Sendable {
    /// The name `--app`, `describe` and `replay --app` take.
    public let name: String
    /// One line for `--list-apps`.
    public let summary: String
    /// Builds the app; called once, for the app that runs (building one may start work, e.g. a probe).
    public let make: @Sendable () -> App

    /// An app called `name`, built by `make` when it is chosen.
    public init(name: String, summary: String, make: @escaping @Sendable () -> App) {
        self.name = name
        self.summary = summary
        self.make = make
    }
}
