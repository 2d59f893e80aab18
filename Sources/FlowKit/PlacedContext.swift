/// A context a flow can require (`Flow.RequiredContext`): `NavigationStack`, `TabBar`, `Presenter`.
///
/// FlowKit hands out an unplaced one (on `NodeID.none`, which every placer refuses) where a flow that
/// has failed has no real context, so a flow author's mistake ends that flow instead of the process.
public protocol PlacedContext: NavigationContext {
    /// A context on no node. Only FlowKit can call it (only FlowKit can make an `Unplaced`).
    init(unplaced: Unplaced)
}
