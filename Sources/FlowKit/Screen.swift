import Foundation

/// A flow's handle on a screen it showed: update its state, observe its outputs. Also a context
/// something can be presented on.
public struct Screen<M: ScreenModule>: NavigationContext {
    /// The screen's id (`.none` if showing it failed).
    public let node: NodeID
    let controller: FlowController
    /// The screen's typed state, for a module that refuses outputs in it (nil otherwise): held here,
    /// an update sets it without a cast from the record's outlet (a generic metadata look-up, ~0.3 k
    /// instructions per update).
    let kept: KeptState<M.State>?

    /// The screen's id.
    public var id: ScreenID { node }

    /// Whether the screen is still placed.
    public var isPlaced: Bool { controller.runtime.model[node]?.kind == .screen }

    /// Sends new state to the screen (ignored once the screen is gone or the flow ended). A state whose
    /// payload equals the screen's current one sends nothing, unless `forced` (a screen that must redraw
    /// anyway, e.g. to restart an animation, gets the `Update` and acks it as any other).
    public func update(_ state: M.State, forced: Bool = false) {
        guard controller.isRunning else { return }
        controller.runtime.update(node, M.self, state: state, kept: kept, forced: forced, owner: controller)
    }

    /// Observes the screen's outputs (replaces an earlier observer). Outputs arrive while the flow runs.
    public func onOutput(_ handler: @escaping (M.Output) -> Void) {
        guard controller.isRunning else { return }
        controller.runtime.setOutputHandler(node, M.self, owner: controller, handler)
    }

    /// Removes this screen (and what is presented on it); `completion` runs once it acknowledged or
    /// timed out. Dismissing the initial screen this way does not end the flow.
    public func dismiss(animated: Bool = true, completion: ((DismissalReport) -> Void)? = nil) {
        guard controller.isRunning else {
            completion?(DismissalReport(outcomes: []))
            return
        }
        controller.runtime.unwind([node], ownedBy: controller.id, animated: animated, completion: completion)
    }
}
