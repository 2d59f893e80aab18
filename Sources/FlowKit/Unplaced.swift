/// The token `PlacedContext.init(unplaced:)` takes. Only FlowKit can make one, so only FlowKit can
/// make an unplaced context; conform your own context types by giving them a node no placer accepts.
public struct Unplaced: Sendable {
    init() {}
}
