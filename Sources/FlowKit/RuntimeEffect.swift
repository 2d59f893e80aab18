/// What an input to the runtime caused, in order: commands for screens and the flows' lifecycle.
/// The runtime never calls out; its driver takes these with `FlowRuntime.takeEffects()` and applies them.
public enum RuntimeEffect: Sendable {
    /// A command for one screen.
    case command(ScreenCommand)
    /// A flow started, emitted an output, finished or ended.
    case flow(FlowLifecycleEvent)
}
