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
