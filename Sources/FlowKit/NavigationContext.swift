/// A place in the navigation model something can be presented on; the contexts placers hand out.
public protocol NavigationContext {
    /// The node this context stands for.
    var node: NodeID { get }
}

/// A navigation stack: screens are pushed onto it and popped from it.
public struct NavigationStack: NavigationContext, Hashable, Sendable {
    /// The stack's node.
    public let node: NodeID
    /// Wraps a stack node id.
    public init(node: NodeID) { self.node = node }
}

/// A tab bar with a fixed number of tabs, one selected.
public struct TabBar: NavigationContext, Hashable, Sendable {
    /// The tab bar's node.
    public let node: NodeID
    /// Wraps a tab bar node id.
    public init(node: NodeID) { self.node = node }
}

/// Anything that can present a modal: the placed node itself (a screen or a container).
public struct Presenter: NavigationContext, Hashable, Sendable {
    /// The presenting node.
    public let node: NodeID
    /// Wraps a node id.
    public init(node: NodeID) { self.node = node }
}

extension NodeID: NavigationContext {
    /// A raw node id is a context too: present on any live node.
    public var node: NodeID { self }
}
