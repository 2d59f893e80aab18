/// Something that happened in a flow's life, for observers such as the daemon's event stream
/// (`RuntimeEffect.flow`). Values are described as text: observers log and display, they do not act.
public struct FlowLifecycleEvent: Hashable, Sendable, CustomStringConvertible {
    /// What happened.
    public enum Kind: Hashable, Sendable {
        /// The flow was started (before its `start` runs, so this comes before its placements).
        case started
        /// The flow emitted an output to its parent.
        case output
        /// The flow finished with a result.
        case finished
        /// The flow ended without a result (terminated, dismissed by the user, screen lost, failed,
        /// or stopped because its parent finished).
        case ended
    }

    /// What happened.
    public var kind: Kind
    /// The flow it happened to.
    public var flow: FlowID
    /// The flow's Swift type name.
    public var typeName: String
    /// The flow's parent (`.host` for root flows).
    public var parent: FlowID
    /// The output, the result or the ending, described (empty for `started`).
    public var value: String

    /// An event.
    public init(kind: Kind, flow: FlowID, typeName: String, parent: FlowID, value: String = "") {
        self.kind = kind
        self.flow = flow
        self.typeName = typeName
        self.parent = parent
        self.value = value
    }

    /// One line: `started OnboardingFlow flow#2 (parent flow#1)`.
    public var description: String {
        let what: String
        switch kind {
        case .started: what = "started"
        case .output: what = "output of"
        case .finished: what = "finished"
        case .ended: what = "ended"
        }
        let parentText = parent == .host ? "" : " (parent \(parent))"
        return "\(what) \(typeName) \(flow)\(parentText)\(value.isEmpty ? "" : ": \(value)")"
    }
}

extension FlowController {
    /// Records a lifecycle event of this flow among the runtime's effects.
    func notify(_ kind: FlowLifecycleEvent.Kind, _ value: @autoclosure () -> String = "") {
        guard id != .host, runtime.reportsFlowEvents else { return }
        runtime.record(FlowLifecycleEvent(kind: kind, flow: id, typeName: typeName, parent: parent?.id ?? .host, value: value()))
    }
}
