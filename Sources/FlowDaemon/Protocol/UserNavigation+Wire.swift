import FlowKit
import FlowWire

extension UserNavigation {
    /// The FlowKit form of a wire `UserNavigation`; nil when no action is set.
    init?(_ message: Flowd_V1_UserNavigation) {
        func phase(_ phase: Flowd_V1_NavigationPhase) -> GesturePhase? {
            switch phase {
            case .immediate, .commit: .committed
            case .begin: .began
            case .cancel: .cancelled
            case .UNRECOGNIZED: nil
            }
        }
        switch message.action {
        case .back(let back)?:
            guard let phase = phase(back.phase) else { return nil }
            self = .back(phase)
        case .selectTab(let select)?:
            self = .selectTab(Int(select.index))
        case .closeModal(let close)?:
            // Only a completed close changes anything; begin/cancel are informational.
            guard phase(close.phase) == .committed else { return nil }
            self = .closeModal
        case nil:
            return nil
        }
    }
}
