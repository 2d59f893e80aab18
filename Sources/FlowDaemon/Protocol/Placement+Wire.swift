import FlowKit
import FlowWire

extension Flowd_V1_Placement {
    /// The wire form of a FlowKit placement: one path element per container
    /// from the window down, then the screen itself. An element's `index` is
    /// its position in the element before it (stack index, tab index);
    /// `presented` marks a node presented modally from inside the element before it.
    init(_ placement: FlowKit.Placement, screen: ScreenID) {
        self.init()
        var nextIndex: UInt32 = 0
        var nextPresented = false
        func element(_ kind: Flowd_V1_NodeKind, _ id: NodeID) -> Flowd_V1_PathElement {
            var element = Flowd_V1_PathElement()
            element.kind = kind
            element.id = id.rawValue
            element.index = nextIndex
            element.presented = nextPresented
            nextIndex = 0
            nextPresented = false
            return element
        }
        for step in placement.path {
            switch step {
            case .window:
                path.append(element(.window, .window))
            case .stack(let id):
                path.append(element(.stack, id))
            case .tab(let bar, let index, let count):
                var tabBar = element(.tabBar, bar)
                tabBar.tabCount = UInt32(count)
                path.append(tabBar)
                nextIndex = UInt32(index)
            case .modal:
                nextPresented = true
            }
        }
        if case .stack? = placement.path.last { nextIndex = UInt32(placement.index) }
        path.append(element(.screen, screen))
        visible = placement.isVisible
        topMost = placement.isTopMost
    }
}

extension Flowd_V1_PlacementChanged.Change {
    /// The wire form of a FlowKit placement change.
    init(_ change: PlacementChange) {
        switch change {
        case .covered: self = .covered
        case .uncovered: self = .uncovered
        case .moved: self = .moved
        }
    }
}

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
