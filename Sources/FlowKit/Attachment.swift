/// Where a placer attaches content.
public enum Attachment: Hashable, Sendable {
    /// As the main window's content (replacing it).
    case windowContent
    /// As the content of a window a flow opened (replacing it; `PlacementRequest.openWindow`).
    case content(ofWindow: NodeID)
    /// On top of a stack.
    case push(onto: NodeID)
    /// As the only content of a stack (replacing what it holds).
    case stackRoot(NodeID)
    /// As the content of a tab (replacing it).
    case tab(bar: NodeID, index: Int)
    /// Presented modally on a node that presents nothing yet.
    case modal(on: NodeID)
}
