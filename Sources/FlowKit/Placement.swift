/// Where a screen is: the container path from the window, its index in its container and whether it
/// is top-most in its container and visible. A plain value the daemon serializes as is.
public struct Placement: Hashable, Codable, Sendable, CustomStringConvertible {
    /// The containers from the window down to the screen's own container.
    public var path: [PlacementStep]
    /// The index in a stack (bottom is 0); 0 for window content, a tab or a modal.
    public var index: Int
    /// Whether the screen is the top of its stack (always true outside stacks).
    public var isTopMost: Bool
    /// Whether the screen is the one the user sees: front-most, not covered by a modal or another tab.
    public var isVisible: Bool

    /// Builds a placement.
    public init(path: [PlacementStep], index: Int, isTopMost: Bool, isVisible: Bool) {
        self.path = path
        self.index = index
        self.isTopMost = isTopMost
        self.isVisible = isVisible
    }

    /// The stack the screen is in, if its container is a stack.
    public var stack: NodeID? {
        if case .stack(let id)? = path.last { return id }
        return nil
    }

    /// E.g. `window/stack#3[1] top visible`.
    public var description: String {
        let steps = path.map(\.description).joined(separator: "/")
        return "\(steps)[\(index)]\(isTopMost ? " top" : "")\(isVisible ? " visible" : "")"
    }
}

/// One container on the path from the window to a screen.
public enum PlacementStep: Hashable, Codable, Sendable, CustomStringConvertible {
    /// The window's content.
    case window
    /// Inside the navigation stack with this id.
    case stack(NodeID)
    /// In tab `index` of the tab bar with this id.
    case tab(bar: NodeID, index: Int)
    /// In the modal presented on this node.
    case modal(presenter: NodeID)

    /// `window`, `stack#3`, `tabs#4:1`, `modal@#5`.
    public var description: String {
        switch self {
        case .window: "window"
        case .stack(let id): "stack\(id)"
        case .tab(let bar, let index): "tabs\(bar):\(index)"
        case .modal(let presenter): "modal@\(presenter)"
        }
    }
}

/// Why a placed screen is told its placement again.
public enum PlacementChange: String, Hashable, Codable, Sendable {
    /// It stopped being visible (or top-most): something was pushed or presented over it, or its tab lost selection.
    case covered
    /// It became visible (or top-most) again.
    case uncovered
    /// Its index changed (a screen below it was removed) without a change of visibility.
    case moved
}
