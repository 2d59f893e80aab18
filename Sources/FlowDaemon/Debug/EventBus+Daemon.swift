import FlowKit
import FlowWire
import Foundation

/// How the daemon's happenings look on the event stream: a screen command, a flow's lifecycle, a
/// screen lost. What each needs of the flows comes in (`runtime`, read only); each is called only
/// when someone listens (`hasSubscribers`), so nothing here runs on the hot path of a quiet daemon.
extension EventBus {
    /// A screen command the delivery gave `serial`; `kind` is its screen's, `contentType` its states',
    /// `delivered` whether the delivery still knew the screen when it was given (a `Dismiss` of one it
    /// did not was never shown, or its host is gone).
    func command(_ command: ScreenCommand, kind: String, serial: UInt64, runtime: FlowRuntime?, contentType: String, delivered: Bool) {
        switch command {
        case .place(let place):
            emit(.place, screen: place.screen, flow: place.owner, name: place.kind, serial: serial,
                 placement: Flowd_V1_Placement(place.placement, screen: place.screen),
                 payload: runtime?.eventPayload(state: place.state, contentType: place.contentType, of: place.screen),
                 text: "place \(place.kind) \(place.screen) at \(place.placement)")
        case .update(let screen, let state, let owner):
            emit(.update, screen: screen, flow: owner, name: kind, serial: serial,
                 payload: runtime?.eventPayload(state: state, contentType: contentType, of: screen), text: "update \(kind) \(screen)")
        case .placementChanged(let screen, let placement, let change, let owner):
            emit(.placementChanged, screen: screen, flow: owner, name: kind, serial: serial,
                 placement: Flowd_V1_Placement(placement, screen: screen), text: "\(change) \(kind) \(screen) now \(placement)")
        case .dismiss(let screen, let animated, let reason):
            emit(.dismiss, screen: screen, flow: runtime?.owner(of: screen), name: kind, serial: serial,
                 text: delivered ? "dismiss \(kind) \(screen)\(animated ? " animated" : "") (\(reason))"
                                 : "dismiss \(kind) \(screen) (never shown or host gone)")
        }
    }

    /// A flow lifecycle effect of the runtime: `FLOW_STARTED`, `FLOW_OUTPUT`, `FLOW_FINISHED`, and
    /// `FLOW_TERMINATED` for every flow that ends without a result (terminated, dismissed by the user,
    /// screen lost, failed, stopped with its parent). Outputs and results travel as `text/plain`
    /// payloads (their Swift description) for recorders.
    func flow(_ event: FlowLifecycleEvent) {
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
        emit(kind, flow: event.flow, name: event.typeName, payload: payload, text: event.description)
    }

    /// A screen was lost and removed: says whether its flow carries on without it (it was told
    /// `.screenLost`) or ended with it (it was the flow's first screen). `owner` is read before the
    /// loss, `runtime` after it.
    func screenLost(_ screen: ScreenID, kind: String, owner: FlowID?, host: UInt64?, runtime: FlowRuntime?) {
        let flow = owner.map { owner in
            let name = "\(owner) \(runtime?.typeName(of: owner) ?? "")".trimmingSpaces
            return runtime?.runningFlows.contains(owner) == true ? "flow \(name) carries on without it" : "flow \(name) ended with it"
        } ?? "no flow owned it"
        emit(.screenLost, screen: screen, flow: owner, connection: host ?? 0, name: kind, text: "screen \(screen) (\(kind)) lost; \(flow)")
    }
}
