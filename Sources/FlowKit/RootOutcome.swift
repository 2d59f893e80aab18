/// What a root flow started with `FlowRuntime.startRoot` reports (`RuntimeEffect.root`): outputs
/// while it runs, then once how it ended. Values are described as text: the daemon logs them.
public enum RootOutcome: Sendable {
    /// An output of the root flow (the app keeps running).
    case output(String)
    /// The root flow finished and the UI it left was unwound without animation.
    case finished(result: String, report: DismissalReport)
    /// The root flow ended without a result (terminated, its screen lost, ...).
    case ended(FlowEnding)
}
