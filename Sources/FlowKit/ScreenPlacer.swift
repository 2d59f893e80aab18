/// A value that places one piece of content (a screen, or a container around it) into the navigation
/// model and returns the context that results. The context type is checked at compile time: a flow
/// needing a `NavigationStack` only accepts a `ScreenPlacer<NavigationStack>`.
public struct ScreenPlacer<Context> {
    private let body: (PlacementRequest) throws(FlowKitError) -> Context

    /// A custom placer: attach `request.content` (directly, or inside containers you create) and return
    /// the context. Compose existing placers with `place(_:)`.
    public init(_ body: @escaping (PlacementRequest) throws(FlowKitError) -> Context) {
        self.body = body
    }

    /// Places the request's content; used by the runtime and by custom placers built on this one.
    public func place(_ request: PlacementRequest) throws(FlowKitError) -> Context {
        try body(request)
    }

    /// The same placement, handing out a different context.
    public func map<T>(_ transform: @escaping (Context) -> T) -> ScreenPlacer<T> {
        ScreenPlacer<T> { (request) throws(FlowKitError) -> T in transform(try self.place(request)) }
    }
}

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

/// Where a placer attaches content.
public enum Attachment: Hashable, Sendable {
    /// As the window's content (replacing it).
    case windowContent
    /// On top of a stack.
    case push(onto: NodeID)
    /// As the only content of a stack (replacing what it holds).
    case stackRoot(NodeID)
    /// As the content of a tab (replacing it).
    case tab(bar: NodeID, index: Int)
    /// Presented modally on a node that presents nothing yet.
    case modal(on: NodeID)
}

/// A container a placer can create.
public enum ContainerKind: Hashable, Sendable {
    /// A navigation stack.
    case stack
    /// A tab bar with this many tabs.
    case tabBar(count: Int)
}

/// Remembers the containers one placement created, so a failed placement leaves nothing behind.
final class PlacementTracker {
    let owner: FlowID
    var created: [NodeID] = []
    init(owner: FlowID) { self.owner = owner }
}
