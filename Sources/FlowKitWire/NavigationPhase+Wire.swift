import FlowKit
import FlowWire

extension NavigationPhase {
    /// The phase a wire `NavigationPhase` names; nil for a value this version does not know.
    package init?(_ wire: Flowd_V1_NavigationPhase) {
        switch wire {
        case .immediate: self = .immediate
        case .begin: self = .begin
        case .cancel: self = .cancel
        case .commit: self = .commit
        case .UNRECOGNIZED: return nil
        }
    }

    /// The wire form of the phase.
    package var wire: Flowd_V1_NavigationPhase {
        switch self {
        case .immediate: .immediate
        case .begin: .begin
        case .cancel: .cancel
        case .commit: .commit
        }
    }
}
