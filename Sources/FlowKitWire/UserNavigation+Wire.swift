import FlowKit
import FlowWire

extension UserNavigation {
    /// The FlowKit form of a wire `UserNavigation`; nil when no action is set, its phase is unknown,
    /// or it is a close gesture that changes nothing yet (`begin`, `cancel`).
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
        case .closeWindow(let close)?:
            guard let phase = NavigationPhase(close.phase), phase.applies else { return nil }
            self = .closeWindow
        case nil:
            return nil
        }
    }
}

extension Flowd_V1_UserNavigation {
    /// The wire form of `navigation` on `screen` (a close is sent as applied: `immediate`).
    package init(_ navigation: UserNavigation, screen: ScreenID) {
        self.init()
        screenID = screen.rawValue
        switch navigation {
        case .back(let phase):
            var back = Flowd_V1_Back()
            back.phase = phase.wire
            action = .back(back)
        case .selectTab(let index):
            var select = Flowd_V1_SelectTab()
            select.index = UInt32(clamping: index)
            action = .selectTab(select)
        case .closeModal:
            var close = Flowd_V1_CloseModal()
            close.phase = .immediate
            action = .closeModal(close)
        case .closeWindow:
            var close = Flowd_V1_CloseWindow()
            close.phase = .immediate
            action = .closeWindow(close)
        }
    }
}
