/// A feature: a sequence of screens and sub-flows. It emits `Output`s while it runs and one `Result`
/// when it finishes.
///
/// A flow is started with a `ScreenPlacer<RequiredContext>`: the kind of navigation context it needs
/// (a `NavigationStack`, a `TabBar`, a `Presenter`). Starting it with a placer of another context does
/// not compile.
public protocol Flow: AnyObject {
    /// The navigation context the flow needs to do its job.
    associatedtype RequiredContext: PlacedContext
    /// What the flow tells its parent while it runs.
    associatedtype Output = Never
    /// What the flow hands its parent when it finishes.
    associatedtype Result = Void

    /// Called once when the flow starts; show the initial screen here with `flow.show(_:_:)`.
    func start(_ flow: FlowContext<Self>)
}
