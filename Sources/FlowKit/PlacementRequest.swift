/// The building blocks a placer uses: the content to place and the operations on the model.
public struct PlacementRequest {
    unowned let runtime: FlowRuntime
    /// The node to place (a detached screen or container).
    public let content: NodeID
    let tracker: PlacementTracker

    /// Attaches the content. Replacing the window content, a stack's contents or a tab's content
    /// removes what was there (flows losing their initial screen end as terminated).
    public func attach(_ attachment: Attachment) throws(FlowKitError) {
        try runtime.attach(content, attachment, tracker: tracker)
    }

    /// Creates a detached container and returns a request to place it; attach `content` into it after
    /// placing it. Containers are removed automatically once empty.
    public func makeContainer(_ kind: ContainerKind) -> PlacementRequest {
        let id: NodeID
        switch kind {
        case .stack: id = runtime.model.createContainer(.stack)
        case .tabBar(let count): id = runtime.model.createContainer(.tabBar, tabCount: max(1, count))
        }
        tracker.created.append(id)
        return PlacementRequest(runtime: runtime, content: id, tracker: tracker)
    }

    /// Whether a node is live and attached under the window.
    public func isPlaced(_ node: NodeID) -> Bool { runtime.model.isAttached(node) }

    /// The kind of a live node.
    public func kind(of node: NodeID) -> NodeKind? { runtime.model[node]?.kind }
}

/// Remembers the containers one placement created, so a failed placement leaves nothing behind.
final class PlacementTracker {
    let owner: FlowID
    var created: [NodeID] = []
    init(owner: FlowID) { self.owner = owner }
}
