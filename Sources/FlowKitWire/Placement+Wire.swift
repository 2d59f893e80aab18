import FlowKit
import FlowWire

extension Flowd_V1_Placement {
    /// The wire form of a FlowKit placement: one path element per container
    /// from the window down, then the screen itself. An element's `index` is
    /// its position in the element before it (stack index, tab index);
    /// `presented` marks a node presented modally from inside the element before it.
    ///
    /// The presenter itself is not on the wire: a modal presented on a screen reads, on the other
    /// side, as presented on that screen's container (see `Placement.init(_:)`).
    package init(_ placement: Placement, screen: ScreenID) {
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

extension Placement {
    /// The FlowKit placement a wire `Placement` describes (docs/protocol.md §7), as a screen host sees it:
    /// each element after the first adds the step that relates it to the element before it
    /// (`.stack`, `.tab`, `.window`, or `.modal(presenter:)` when it is `presented` on that element);
    /// the last element is the screen, whose `index` is the placement's index when it is in a stack.
    /// Elements of a kind this version does not know add no step.
    package init(_ wire: Flowd_V1_Placement) {
        var path: [PlacementStep] = []
        let elements = wire.path
        for position in elements.indices.dropFirst() {
            let container = elements[position - 1]
            let element = elements[position]
            let id = NodeID(rawValue: container.id)
            if element.presented {
                path.append(.modal(presenter: id))
                continue
            }
            switch container.kind {
            case .window: path.append(.window)
            case .stack: path.append(.stack(id))
            case .tabBar: path.append(.tab(bar: id, index: Int(element.index), count: Int(container.tabCount)))
            case .screen, .unspecified, .UNRECOGNIZED: continue
            }
        }
        var index = 0
        if case .stack? = path.last, let screen = elements.last { index = Int(screen.index) }
        self.init(path: path, index: index, isTopMost: wire.topMost, isVisible: wire.visible)
    }
}
