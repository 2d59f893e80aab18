import FlowKit
import FlowWire

extension Daemon {
    /// Emits a debug event and sends its frames to the matching subscribers.
    func emitEvent(
        _ kind: Flowd_V1_EventKind, screen: ScreenID? = nil, flow: @autoclosure () -> FlowID? = nil, connection: UInt64 = 0,
        name: String = "", serial: UInt64 = 0, placement: Flowd_V1_Placement? = nil,
        payload: @autoclosure () -> Flowd_V1_Payload? = nil,
        text: @autoclosure () -> String
    ) {
        guard debug.events.hasSubscribers else { return debug.events.countUnheard() }
        let frames = debug.events.emit(
            kind, screen: screen, flow: flow(), connection: connection, name: name, serial: serial, placement: placement,
            payload: payload(), text: text(), unread: { [connections] in connections[$0]?.pendingBytes })
        for frame in frames {
            if let watcher = connections[frame.connection] { send(frame.body, to: watcher) }
        }
    }

    /// A screen was lost and removed: says whether its flow carries on without it (it was told
    /// `.screenLost`) or ended with it (it was the flow's first screen). `owner` is read before the loss.
    func emitScreenLost(_ screen: ScreenID, kind: String, owner: FlowID?, host: UInt64?) {
        guard debug.events.hasSubscribers else { return debug.events.countUnheard() }
        let flow = owner.map { owner in
            let name = "\(owner) \(runtime?.typeName(of: owner) ?? "")".trimmingCharacters(in: .whitespaces)
            return runtime?.runningFlows.contains(owner) == true ? "flow \(name) carries on without it" : "flow \(name) ended with it"
        } ?? "no flow owned it"
        emitEvent(.screenLost, screen: screen, flow: owner, connection: host ?? 0, name: kind,
                  text: "screen \(screen) (\(kind)) lost; \(flow)")
    }
}
