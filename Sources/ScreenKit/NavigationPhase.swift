import FlowWire

/// The phase of a user navigation (docs/protocol.md §9). A button press is
/// `.immediate`; an interactive gesture sends `.begin`, then exactly one of
/// `.cancel` / `.commit`. Only `.immediate` and `.commit` change anything.
public enum NavigationPhase: Sendable, Hashable {
    /// Apply now (a button press).
    case immediate
    /// An interactive gesture started (informational).
    case begin
    /// The gesture was abandoned; nothing changes.
    case cancel
    /// The gesture completed; apply now.
    case commit

    /// The wire value.
    package var wire: Flowd_V1_NavigationPhase {
        switch self {
        case .immediate: .immediate
        case .begin: .begin
        case .cancel: .cancel
        case .commit: .commit
        }
    }
}
