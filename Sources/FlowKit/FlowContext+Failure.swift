extension FlowContext {
    /// What `context` returns when there is none: a running flow fails with `.contextUnavailable`
    /// (its parent hears `.ended(.failed)`, the runtime and other flows go on); the value is an
    /// unplaced context, which every placer refuses and no call on the ended flow uses.
    func contextUnavailable() -> F.RequiredContext {
        if controller.isRunning, controller.id != .host {
            let error = FlowKitError(.contextUnavailable, "flow \(controller.id) (\(controller.typeName)) read flow.context before its initial screen was placed; show the initial screen with flow.show(_:_:) first, or use flow.contextIfPlaced")
            controller.runtime.end(controller, .failed(error), notify: true, animated: false, group: nil)
        }
        return F.RequiredContext(unplaced: Unplaced())
    }
}
