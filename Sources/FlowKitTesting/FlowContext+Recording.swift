import FlowKit

extension FlowContext {
    /// Starts a sub-flow whose outputs, result and ending `recorder` records (for tests of a parent).
    @discardableResult
    public func start<C: Flow>(_ child: C, _ placer: ScreenPlacer<C.RequiredContext>, recorder: FlowRecorder<C>) -> FlowID {
        let id = start(
            child, placer, onOutput: { recorder.record(.output($0)) },
            onFinish: { recorder.record(.finished($0, $1)) }, onEnd: { recorder.record(.ended($0)) })
        recorder.id = id
        return id
    }
}
