import FlowKit

/// Records what a started flow reported to its parent: outputs, the result and dismisser, or its ending.
public final class FlowRecorder<F: Flow> {
    /// The flow's id.
    public internal(set) var id = FlowID.host
    /// Every event, in order.
    public private(set) var events: [FlowEvent<F>] = []
    /// Called with the dismisser when the flow finishes (default: leave the UI in place).
    public var onFinish: ((Dismisser) -> Void)?
    /// Called with every event after recording it.
    public var onEvent: ((FlowEvent<F>) -> Void)?

    /// A recorder (the tester starts the flow with it).
    public init() {}

    /// Records one event; pass this as the handler when starting a flow yourself.
    public func record(_ event: FlowEvent<F>) {
        events.append(event)
        if case .finished(_, let dismisser) = event { onFinish?(dismisser) }
        onEvent?(event)
    }

    /// The outputs emitted so far.
    public var outputs: [F.Output] {
        events.compactMap { if case .output(let output) = $0 { output } else { nil } }
    }

    /// The result, once finished.
    public var result: F.Result? {
        for case .finished(let result, _) in events { return result }
        return nil
    }

    /// The dismisser, once finished.
    public var dismisser: Dismisser? {
        for case .finished(_, let dismisser) in events { return dismisser }
        return nil
    }

    /// How the flow ended without a result, if it did.
    public var ending: FlowEnding? {
        for case .ended(let ending) in events { return ending }
        return nil
    }

    /// Whether the flow finished or ended.
    public var isOver: Bool { result != nil || ending != nil }
}
