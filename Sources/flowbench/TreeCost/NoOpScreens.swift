import FlowKit

/// Screens that do nothing: the runtime's settle loop with no delivery, counting the commands and
/// acknowledging every dismissal at once. `tree-cost` measures FlowKit's own work per operation with
/// it (the delivery's is in `flowd-echo`).
final class NoOpScreens {
    /// Commands the runtime issued, by kind (a check that operations did happen).
    private(set) var places = 0, updates = 0, placementChanges = 0, dismissals = 0
    private var effects: [RuntimeEffect] = []

    /// Applies everything the runtime has to say.
    func drain(_ runtime: FlowRuntime) {
        runtime.settle(reusing: &effects) { effect in
            guard case .command(let command) = effect else { return }
            switch command {
            case .place: places += 1
            case .update: updates += 1
            case .placementChanged: placementChanges += 1
            case .dismiss(let screen, _, _):
                dismissals += 1
                runtime.dismissalCompleted(screen, .acknowledged)
            }
        }
    }
}
