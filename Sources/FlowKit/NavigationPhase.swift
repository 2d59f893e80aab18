/// The phase of a user navigation (docs/protocol.md §9), one vocabulary from the screen host to the
/// flows: a button press is `immediate`; an interactive gesture is `begin`, then exactly one of
/// `cancel` / `commit`. Only `immediate` and `commit` change anything. The raw values are the words
/// a web page sends (docs/web.md); `FlowKitWire` maps the phases to the wire and back.
public enum NavigationPhase: String, CaseIterable, Hashable, Codable, Sendable {
    /// Apply now (a button press).
    case immediate
    /// An interactive gesture started; nothing changes yet.
    case begin
    /// The gesture was abandoned; nothing changes.
    case cancel
    /// The gesture completed; the navigation happens.
    case commit

    /// Whether the navigation happens in this phase (`immediate` or `commit`).
    public var applies: Bool { self == .immediate || self == .commit }

    /// What the phase did, as logs and `flowctl` say it: `committed` (a button press too), `began`,
    /// `cancelled`; the same words as the wire's `Flowd_V1_NavigationPhase.word`.
    var word: String {
        switch self {
        case .immediate, .commit: "committed"
        case .begin: "began"
        case .cancel: "cancelled"
        }
    }
}

/// The phase of an interactive gesture: `NavigationPhase` under its former name.
@available(*, deprecated, renamed: "NavigationPhase")
public typealias GesturePhase = NavigationPhase

extension NavigationPhase {
    /// `GesturePhase.began`: `begin`.
    @available(*, deprecated, renamed: "begin")
    public static let began = NavigationPhase.begin
    /// `GesturePhase.cancelled`: `cancel`.
    @available(*, deprecated, renamed: "cancel")
    public static let cancelled = NavigationPhase.cancel
    /// `GesturePhase.committed`: `commit` (a button press is `immediate`; both apply alike).
    @available(*, deprecated, renamed: "commit")
    public static let committed = NavigationPhase.commit
}
