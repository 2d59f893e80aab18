import FlowKit
import FlowWire
import Foundation

extension DaemonCore {
    /// Turns a flow lifecycle effect of the runtime into a debug event: `FLOW_STARTED`,
    /// `FLOW_OUTPUT`, `FLOW_FINISHED`, and `FLOW_TERMINATED` for every flow that ends without a result
    /// (terminated, dismissed by the user, screen lost, failed, stopped with its parent). Outputs and
    /// results travel as `text/plain` payloads (their Swift description) for recorders.
    mutating func emitFlowEvent(_ event: FlowLifecycleEvent) {
        guard debug.events.hasSubscribers else { return debug.events.countUnheard() }
        let kind: Flowd_V1_EventKind
        switch event.kind {
        case .started: kind = .flowStarted
        case .output: kind = .flowOutput
        case .finished: kind = .flowFinished
        case .ended: kind = .flowTerminated
        }
        var payload: Flowd_V1_Payload?
        if !event.value.isEmpty {
            var value = Flowd_V1_Payload()
            value.contentType = EventPayloads.textContentType
            value.data = Data(event.value.utf8)
            payload = value
        }
        debug.events.emit(kind, flow: event.flow, name: event.typeName, payload: payload, text: event.description)
    }
}
