import FlowKit
import FlowWire

extension UserNavigation {
    /// The FlowKit form of a wire `UserNavigation`; nil when no action is set, its phase is unknown,
    /// or it is a close-modal gesture that changes nothing yet (`begin`, `cancel`).
    package init?(_ message: Flowd_V1_UserNavigation) {
        switch message.action {
        case .back(let back)?:
            guard let phase = NavigationPhase(back.phase) else { return nil }
            self = .back(phase)
        case .selectTab(let select)?:
            self = .selectTab(Int(select.index))
        case .closeModal(let close)?:
            // Only a close that applies changes anything; begin/cancel are informational.
            guard let phase = NavigationPhase(close.phase), phase.applies else { return nil }
            self = .closeModal
        case nil:
            return nil
        }
    }
}
