import Foundation

/// What a flow uses from inside: show screens, start sub-flows, emit outputs, finish.
/// Calls on a flow that has ended do nothing.
public struct FlowContext<F: Flow> {
    let controller: FlowNode<F>

    init(controller: FlowNode<F>) { self.controller = controller }

    /// The flow's id.
    public var id: FlowID { controller.id }

    /// Whether the flow is still running.
    public var isRunning: Bool { controller.isRunning }

    /// The placer the flow was started with.
    public var placer: ScreenPlacer<F.RequiredContext> {
        if let placer = controller.placer { return placer }
        return ScreenPlacer { (_) throws(FlowKitError) -> F.RequiredContext in
            throw FlowKitError(.notRunning, "flow \(controller.id) (\(controller.typeName)) has ended; its placer can no longer place")
        }
    }

    /// The context the flow's own placer returned when the initial screen was shown. Read too early
    /// (before `show(_:_:)`, or after it failed), it fails this flow with `.contextUnavailable` and
    /// returns an unplaced context that every placer refuses; see `contextIfPlaced`.
    public var context: F.RequiredContext {
        if let context = controller.context { return context }
        return contextUnavailable()
    }

    /// The context, or nil before the initial screen is shown.
    public var contextIfPlaced: F.RequiredContext? { controller.context }

    /// Shows a screen with the flow's own placer (the initial screen). If placing fails the flow ends
    /// with `.failed` and the returned handle is inert.
    @discardableResult
    public func show<M: ScreenModule>(_ module: M.Type, _ state: M.State) -> Screen<M> {
        let placed = controller.runtime.placeScreen(module, state: state, placer: placer, owner: controller)
        if let context = placed?.1, controller.context == nil, controller.isRunning { controller.context = context }
        return Screen(node: placed?.0 ?? .none, controller: controller, kept: placed?.2)
    }

    /// Shows a screen with any placer (e.g. `.pushed(in: flow.context)`).
    @discardableResult
    public func show<M: ScreenModule, C>(_ module: M.Type, _ state: M.State, _ placer: ScreenPlacer<C>) -> Screen<M> {
        place(module, state, placer).screen
    }

    /// Shows a screen with any placer and also returns the context the placer produced (e.g. a new stack).
    public func place<M: ScreenModule, C>(_ module: M.Type, _ state: M.State, _ placer: ScreenPlacer<C>) -> (screen: Screen<M>, context: C?) {
        let placed = controller.runtime.placeScreen(module, state: state, placer: placer, owner: controller)
        return (Screen(node: placed?.0 ?? .none, controller: controller, kept: placed?.2), placed?.1)
    }

    /// Starts a sub-flow with a placer of the context it requires. Every way it can stop needs a
    /// handler: `onFinish` gets its result and a dismisser, `onEnd` how it ended without one
    /// (`.failed` included). The sub-flow is retained until it finishes or is terminated.
    @discardableResult
    public func start<C: Flow>(
        _ child: C, _ placer: ScreenPlacer<C.RequiredContext>, onOutput: @escaping (C.Output) -> Void,
        onFinish: @escaping (C.Result, Dismisser) -> Void, onEnd: @escaping (FlowEnding) -> Void
    ) -> FlowID {
        controller.runtime.startFlow(child, placer: placer, parent: controller) { event in
            switch event {
            case .output(let output): onOutput(output)
            case .finished(let result, let dismisser): onFinish(result, dismisser)
            case .ended(let ending): onEnd(ending)
            }
        }
    }

    /// Starts a sub-flow that has no outputs; `onFinish` and `onEnd` as above.
    @discardableResult
    public func start<C: Flow>(
        _ child: C, _ placer: ScreenPlacer<C.RequiredContext>,
        onFinish: @escaping (C.Result, Dismisser) -> Void, onEnd: @escaping (FlowEnding) -> Void
    ) -> FlowID where C.Output == Never {
        start(child, placer, onOutput: { _ in }, onFinish: onFinish, onEnd: onEnd)
    }

    /// Tells the parent an output; the flow keeps running.
    public func emit(_ output: F.Output) {
        guard controller.isRunning else { return }
        controller.notify(.output, String(describing: output))
        controller.reportOutput(output)
    }

    /// Finishes with a result: running sub-flows stop (their UI stays, included in the dismisser), the
    /// flow is released, and the parent receives the result and a dismisser for everything left placed.
    public func finish(_ result: F.Result) {
        controller.runtime.finish(controller, result: result)
    }

    /// Terminates a sub-flow this flow started: its sub-flows first (last started first), then its
    /// screens are unwound. The handler is not called; `completion` runs once every screen is gone.
    public func terminate(_ child: FlowID, animated: Bool = false, completion: ((DismissalReport) -> Void)? = nil) {
        guard let sub = controller.children[child] else {
            completion?(DismissalReport(outcomes: []))
            return
        }
        controller.runtime.terminate(sub, notify: false, animated: animated, completion: completion)
    }

    /// Sub-flows still running, oldest first.
    public var runningSubFlows: [FlowID] { controller.children.keys.sorted() }

    /// Observes navigation the user (or a dying host) did to this flow's screens.
    public func onNavigation(_ handler: @escaping (NavigationEvent) -> Void) {
        guard controller.isRunning else { return }
        controller.onNavigation = handler
    }

    /// Selects a tab of a tab bar (the flow's own choice, not the user's).
    public func selectTab(_ index: Int, of bar: TabBar) {
        guard controller.isRunning else { return }
        try? controller.runtime.selectTab(index, of: bar.node)
    }
}
