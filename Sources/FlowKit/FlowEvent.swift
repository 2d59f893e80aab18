/// What a sub-flow reports to the handler its parent gave when starting it.
public enum FlowEvent<F: Flow> {
    /// The flow emitted an output and keeps running.
    case output(F.Output)
    /// The flow finished with a result; the dismisser covers exactly the UI it leaves behind. Until the
    /// parent dismisses it, that UI belongs to the parent.
    case finished(F.Result, Dismisser)
    /// The flow ended without a result; its UI is already gone (or being unwound).
    case ended(FlowEnding)
}
