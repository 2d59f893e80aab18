import FlowKit

/// Everything a screen host of an app must understand: the contract of each kind its modules
/// declare (`ScreenContract`), and the kinds it names without a module (hosted on trust).
/// `flowd describe APP` prints it; a running daemon answers `Describe` with its `json`.
public struct AppContract: Sendable, Equatable {
    /// The app's name.
    public var app: String
    /// One per module, by kind.
    public var screens: [ScreenContract]
    /// Kinds in `App.screens` that no module describes.
    public var undescribedKinds: [String]

    /// The contract of `app`'s modules.
    public init(_ app: App) {
        self.app = app.name
        var seen = Set<String>()
        screens = app.modules.compactMap { module in
            guard seen.insert(module.kind).inserted else { return nil }
            return contract(of: module)
        }.sorted { $0.kind < $1.kind }
        undescribedKinds = app.kinds.filter { !seen.contains($0) }
    }

    /// `{"app": ..., "screens": [...], "undescribed_kinds": [...]}`.
    public var json: JSONValue {
        .object([
            "app": .string(app), "screens": .array(screens.map(\.json)),
            "undescribed_kinds": .array(undescribedKinds.map { .string($0) }),
        ])
    }
}

/// Opens the existential to build a module's contract.
private func contract<M: ScreenModule>(of module: M.Type) -> ScreenContract { ScreenContract(module) }
