import FlowKit

/// Screens that do nothing: takes the runtime's effects, counts the commands, and acknowledges every
/// dismissal at once. `tree-cost` measures FlowKit's own work per operation with it.
final class NoOpScreens {
    /// Commands the runtime issued, by kind (a check that operations did happen).
    private(set) var places = 0, updates = 0, placementChanges = 0, dismissals = 0

    /// Applies everything the runtime has to say.
    func drain(_ runtime: FlowRuntime) {
        while runtime.hasEffects {
            for case .command(let command) in runtime.takeEffects() {
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
}
