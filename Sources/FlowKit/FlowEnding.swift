/// Why a flow ended without a result.
public enum FlowEnding: Hashable, Sendable, CustomStringConvertible {
    /// The user removed the flow's initial screen (back, closing a modal).
    case dismissedByUser
    /// The host of this screen (the flow's initial screen, or the node it depended on) died.
    case screenLost(ScreenID)
    /// The flow was terminated from outside its parent (debug client, shutdown, an unrelated dismissal).
    case terminated
    /// The flow could not place a screen (the error says why).
    case failed(FlowKitError)

    /// A short description.
    public var description: String {
        switch self {
        case .dismissedByUser: "dismissed by user"
        case .screenLost(let id): "screen \(id) lost"
        case .terminated: "terminated"
        case .failed(let error): "failed: \(error)"
        }
    }
}
