/// A place in the navigation model something can be presented on: the contexts placers hand out and
/// `Screen` handles. A raw `NodeID` is not one: contexts come from placements, never from ids.
public protocol NavigationContext {
    /// The node this context stands for.
    var node: NodeID { get }
}

/// A navigation stack: screens are pushed onto it and popped from it.
public struct NavigationStack: PlacedContext, Hashable, Sendable {
    /// The stack's node.
    public let node: NodeID
    /// Wraps a stack node id: only placers (and tests in this package) make contexts, so a context's type
    /// is what was really placed.
    package init(node: NodeID) { self.node = node }
    /// A navigation stack on no node, which every placer refuses.
    public init(unplaced: Unplaced) { self.node = .none }
}

/// A tab bar with a fixed number of tabs, one selected.
public struct TabBar: PlacedContext, Hashable, Sendable {
    /// The tab bar's node.
    public let node: NodeID
    /// Wraps a tab bar node id: only placers (and tests in this package) make contexts, so a context's type
    /// is what was really placed.
    package init(node: NodeID) { self.node = node }
    /// A tab bar on no node, which every placer refuses.
    public init(unplaced: Unplaced) { self.node = .none }
}

/// Anything that can present a modal: the placed node itself (a screen or a container).
public struct Presenter: PlacedContext, Hashable, Sendable {
    /// The presenting node.
    public let node: NodeID
    /// Wraps a node id: only placers (and tests in this package) make contexts, so a context's type
    /// is what was really placed.
    package init(node: NodeID) { self.node = node }
    /// A presenter on no node, which every placer refuses.
    public init(unplaced: Unplaced) { self.node = .none }
}
