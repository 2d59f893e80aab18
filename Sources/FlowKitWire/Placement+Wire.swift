import FlowKit
import FlowWire

extension Flowd_V1_Placement {
    /// The wire form of a FlowKit placement: one path element per container
    /// from the window down, then the screen itself. An element's `index` is
    /// its position in the element before it (stack index, tab index);
    /// `presented` marks a node presented modally from inside the element before it, and
    /// `presenter_id` names the node it is presented on (a screen is not itself on the path).
    package init(_ placement: Placement, screen: ScreenID) {
        self.init()
        var nextIndex: UInt32 = 0
        var nextPresented = false
        var nextPresenter: NodeID = .none
        func element(_ kind: Flowd_V1_NodeKind, _ id: NodeID) -> Flowd_V1_PathElement {
            var element = Flowd_V1_PathElement()
            element.kind = kind
            element.id = id.rawValue
            element.index = nextIndex
            element.presented = nextPresented
            element.presenterID = nextPresenter.rawValue
            nextIndex = 0
            nextPresented = false
            nextPresenter = .none
            return element
        }
        for step in placement.path {
            switch step {
            case .window:
                path.append(element(.window, .window))
            case .otherWindow(let window, let display):
                var opened = element(.window, window)
                opened.display = display
                path.append(opened)
            case .stack(let id):
                path.append(element(.stack, id))
            case .tab(let bar, let index, let count):
                var tabBar = element(.tabBar, bar)
                tabBar.tabCount = UInt32(count)
                path.append(tabBar)
                nextIndex = UInt32(index)
            case .modal(let presenter):
                nextPresented = true
                nextPresenter = presenter
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
    /// (`.stack`, `.tab`, `.window`, or `.modal(presenter:)` when it is `presented`: on `presenter_id`,
    /// or on that element when a peer leaves the id out);
    /// the last element is the screen, whose `index` is the placement's index when it is in a stack.
    /// Elements of a kind this version does not know add no step.
    package init(_ wire: Flowd_V1_Placement) {
        var path: [PlacementStep] = []
        let elements = wire.path
        for position in elements.indices.dropFirst() {
            let container = elements[position - 1]
            let element = elements[position]
            let id = NodeID(rawValue: container.id)
            func containment() -> PlacementStep? {
                switch container.kind {
                case .window: id == .window || id == .none ? .window : .otherWindow(id, display: container.display)
                case .stack: .stack(id)
                case .tabBar: .tab(bar: id, index: Int(element.index), count: Int(container.tabCount))
                case .screen, .unspecified, .UNRECOGNIZED: nil
                }
            }
            guard element.presented else {
                if let step = containment() { path.append(step) }
                continue
            }
            let presenter = element.presenterID != 0 ? NodeID(rawValue: element.presenterID) : id
            // Presented on a node inside the container (a screen, not on the wire): that node's place first.
            // A window a flow opened can itself present: its own step comes first.
            let openedWindow = container.kind == .window && id != .window && id != .none
            if presenter != id || openedWindow, let step = containment() { path.append(step) }
            path.append(.modal(presenter: presenter))
        }
        var index = 0
        if case .stack? = path.last, let screen = elements.last { index = Int(screen.index) }
        self.init(path: path, index: index, isTopMost: wire.topMost, isVisible: wire.visible)
    }
}
