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

    /// The new form with only its `onFinish` handler, as a trailing closure: not a removed API, but
    /// without it the call above would be the compiler's nearest match, and it would answer
    /// `onEnd` forgotten with a closure-arity error about `FlowEvent`.
    @available(*, unavailable, message: """
        a sub-flow needs a handler for each way it can stop: start(child, placer, onFinish: { result, dismisser in … }, \
        onEnd: { ending in … }), and onOutput: { output in … } first when the child has outputs
        """)
    @discardableResult
    public func start<C: Flow>(_ child: C, _ placer: ScreenPlacer<C.RequiredContext>,
                               onFinish: @escaping (C.Result, Dismisser) -> Void) -> FlowID {
        fatalError("unavailable")
    }
}

/// The seam of 0.1.0 between the runtime and whatever hosted screens.
@available(*, unavailable, message: """
    the runtime no longer calls a transport: it returns effects. Make it with FlowRuntime(codec:) and read \
    them with takeEffects() or settle(reusing:_:); LocalScreenHost hosts screens in-process (FlowKitTesting's \
    FlowTester builds one for you)
    """)
public protocol ScreenTransport: AnyObject {}

extension FlowRuntime {
    /// The runtime of 0.1.0, made over a transport.
    @available(*, unavailable, message: "use FlowRuntime(codec:) and read its effects with takeEffects() or settle(reusing:_:)")
    public convenience init(transport: any ScreenTransport) {
        fatalError("unavailable")
    }

    /// The transport of 0.1.0.
    @available(*, unavailable, message: "the runtime has no transport: screen commands are RuntimeEffect.command effects")
    public var transport: any ScreenTransport { fatalError("unavailable") }

    /// The lifecycle observer of 0.1.0.
    @available(*, unavailable, message: "lifecycle events are RuntimeEffect.flow effects (takeEffects() or settle(reusing:_:))")
    public var observer: ((FlowLifecycleEvent) -> Void)? {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }

    /// A termination of 0.1.0 that called back when its screens were gone.
    @available(*, unavailable, message: """
        terminate(flow:animated:) takes no completion: its end is the RuntimeEffect.unwound(.flow(id), report) effect
        """)
    public func terminate(flow: FlowID, animated: Bool = false, completion: @escaping (DismissalReport) -> Void) throws(FlowKitError) {
        fatalError("unavailable")
    }

    /// The shutdown's termination of 0.1.0 that called back when every screen was gone.
    @available(*, unavailable, message: "terminateAll(animated:) takes no completion: its end is the RuntimeEffect.unwound(.all, report) effect")
    public func terminateAll(animated: Bool = false, completion: @escaping (DismissalReport) -> Void) {
        fatalError("unavailable")
    }
}
