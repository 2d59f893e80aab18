import Foundation

/// The seam between FlowKit and whatever hosts screens (the daemon, or a fake in tests). All calls
/// happen on the runtime's one thread.
public protocol ScreenTransport: AnyObject {
    /// Creates screen `screen` of `kind` with JSON `state` at `placement`.
    func place(_ screen: ScreenID, kind: String, state: Data, placement: Placement)
    /// Gives a placed screen new JSON state.
    func update(_ screen: ScreenID, state: Data)
    /// Tells a placed screen its placement changed (covered, uncovered, moved).
    func placementChanged(_ screen: ScreenID, placement: Placement, change: PlacementChange)
    /// Removes a screen; call `completion` exactly once when it acknowledged, timed out or its host
    /// died. The transport owns the timeout. It may call `completion` before returning.
    func dismiss(_ screen: ScreenID, animated: Bool, completion: @escaping (DismissOutcome) -> Void)
}
