import Foundation

/// One input to the runtime as data: what the daemon feeds it, a journal stores and a replay feeds
/// again. `FlowRuntime.handle(_:)` applies it and returns what it caused.
public enum FlowInput: Hashable, Sendable {
    /// A screen sent an output (its payload, in the runtime's codec).
    case output(ScreenID, payload: Data)
    /// The user navigated on a screen.
    case userNavigation(UserNavigation, screen: ScreenID)
    /// A `Dismiss` was acknowledged, timed out or lost its host.
    case dismissalCompleted(ScreenID, DismissOutcome)
    /// A screen's host died.
    case screenLost(ScreenID)
    /// A flow is terminated from outside.
    case terminate(FlowID, animated: Bool)
    /// Every flow is terminated (shutdown).
    case terminateAll(animated: Bool)
}
