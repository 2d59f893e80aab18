// Removed and renamed API, kept for one minor version as unavailable declarations, so the compiler
// says what to write instead (docs/CHANGELOG.md, "Removed"). Never called: each is unavailable.

extension FlowContext {
    /// The one-closure sub-flow start of 0.1.0.
    @available(*, unavailable, message: """
        a sub-flow takes one handler per way it can stop: start(child, placer, onOutput: { output in … }, \
        onFinish: { result, dismisser in … }, onEnd: { ending in … }) (leave out onOutput when its Output is Never); \
        FlowEvent's .output, .finished and .ended map to them one to one
        """)
    @discardableResult
    public func start<C: Flow>(_ child: C, _ placer: ScreenPlacer<C.RequiredContext>, handler: @escaping (FlowEvent<C>) -> Void) -> FlowID {
        fatalError("unavailable")
    }
}
