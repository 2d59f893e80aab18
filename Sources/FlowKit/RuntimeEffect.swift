/// What an input to the runtime caused, in order: commands for screens, the flows' lifecycle, the
/// outside data flows ask for, and the ends of unwindings and of the root flow. The runtime never
/// calls out; its driver takes these with `FlowRuntime.takeEffects()` and applies them.
public enum RuntimeEffect: Sendable {
    /// A command for one screen.
    case command(ScreenCommand)
    /// A flow started, emitted an output, finished or ended.
    case flow(FlowLifecycleEvent)
    /// A flow asked for outside data: start the timer or run the work, and feed its answer back as
    /// an input. A driver replaying inputs that hold the answers (a journal) starts nothing.
    case request(ExternalRequest)
    /// A request is no longer wanted (its flow cancelled it or ended): stop it; an answer for it
    /// would be refused.
    case cancelRequest(RequestID)
    /// A `.terminate` or `.terminateAll` input finished unwinding: every screen it removed was
    /// acknowledged, timed out or lost its host.
    case unwound(Unwinding, DismissalReport)
    /// The root flow started with `FlowRuntime.startRoot` reported: an output, or its end.
    case root(RootOutcome)
}

/// Which unwinding a `RuntimeEffect.unwound` completes.
public enum Unwinding: Hashable, Sendable {
    /// `FlowInput.terminate` of this flow.
    case flow(FlowID)
    /// `FlowInput.terminateAll`.
    case all
}
