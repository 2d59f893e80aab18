/// What a sub-flow reports to the handler its parent gave when starting it.
public enum FlowEvent<F: Flow> {
    /// The flow emitted an output and keeps running.
    case output(F.Output)
    /// The flow finished with a result; the dismisser covers exactly the UI it leaves behind. Until the
    /// parent dismisses it, that UI belongs to the parent.
    case finished(F.Result, Dismisser)
    /// The flow ended without a result; its UI is already gone (or being unwound).
    case ended(FlowEnding)
}

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

/// Navigation that changed a running flow's UI without the flow asking; delivered to `onNavigation`.
public enum NavigationEvent: Hashable, Sendable {
    /// The user popped this screen of the flow (back).
    case popped(ScreenID)
    /// The user closed a modal containing this screen of the flow.
    case modalClosed(ScreenID)
    /// The user selected a tab of a tab bar around one of the flow's screens.
    case tabSelected(bar: NodeID, index: Int)
    /// This screen's host died; the screen is gone.
    case screenLost(ScreenID)
    /// This screen was removed because what it was placed on went away.
    case removed(ScreenID)
}
