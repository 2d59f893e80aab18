import FlowKit

/// What the root flow told the daemon.
public enum AppOutcome: Sendable {
    /// An output of the root flow (logged; the app keeps running).
    case output(String)
    /// The root flow finished and its UI was unwound.
    case finished(result: String, report: DismissalReport)
    /// The root flow ended without a result (terminated, its screen lost, ...).
    case ended(FlowEnding)
}
