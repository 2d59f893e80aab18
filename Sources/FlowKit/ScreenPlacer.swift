/// A value that places one piece of content (a screen, or a container around it) into the navigation
/// model and returns the context that results. The context type is checked at compile time: a flow
/// needing a `NavigationStack` only accepts a `ScreenPlacer<NavigationStack>`.
public struct ScreenPlacer<Context> {
    private let body: (PlacementRequest) throws(FlowKitError) -> Context
    /// Whether the screen host should animate the appearance (sent as `Place.animated`).
    public let animated: Bool

    /// A custom placer: attach `request.content` (directly, or inside containers you create) and return
    /// the context. Compose existing placers with `place(_:)`.
    public init(animated: Bool = false, _ body: @escaping (PlacementRequest) throws(FlowKitError) -> Context) {
        self.animated = animated
        self.body = body
    }

    /// Places the request's content; used by the runtime and by custom placers built on this one.
    public func place(_ request: PlacementRequest) throws(FlowKitError) -> Context {
        try body(request)
    }

    /// The same placement, handing out a different context.
    public func map<T>(_ transform: @escaping (Context) -> T) -> ScreenPlacer<T> {
        ScreenPlacer<T>(animated: animated) { (request) throws(FlowKitError) -> T in transform(try self.place(request)) }
    }
}
