/// A token for exactly the UI a finished flow left placed (its screens and what its sub-flows left).
/// Until the parent dismisses it, that UI belongs to the parent; `leave()` keeps it for good.
public final class Dismisser {
    unowned let runtime: FlowRuntime
    /// The flow that adopted the screens (the finished flow's parent, or the host).
    let adopter: FlowID
    /// The screens covered, in placement order.
    public let screens: [ScreenID]
    /// Whether `dismiss` or `leave` was called.
    public private(set) var isDecided = false

    init(runtime: FlowRuntime, adopter: FlowID, screens: [ScreenID]) {
        self.runtime = runtime
        self.adopter = adopter
        self.screens = screens
    }

    /// Removes the covered screens still placed and owned by the adopter, top-most first;
    /// `completion` runs once every screen acknowledged, timed out or lost its host.
    public func dismiss(animated: Bool = true, completion: ((DismissalReport) -> Void)? = nil) {
        guard !isDecided else {
            completion?(DismissalReport(outcomes: []))
            return
        }
        isDecided = true
        runtime.unwind(screens, ownedBy: adopter, animated: animated, completion: completion)
    }

    /// Leaves the screens in place; the adopter keeps them.
    public func leave() {
        isDecided = true
    }
}
