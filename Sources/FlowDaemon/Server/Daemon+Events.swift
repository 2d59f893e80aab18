import FlowKit
import FlowWire

extension Daemon {
    /// Emits a debug event and sends its frames to the matching subscribers.
    func emitEvent(
        _ kind: Flowd_V1_EventKind, screen: ScreenID? = nil, flow: @autoclosure () -> FlowID? = nil, connection: UInt64 = 0,
        name: String = "", serial: UInt64 = 0, placement: Flowd_V1_Placement? = nil, payload: Flowd_V1_Payload? = nil,
        text: @autoclosure () -> String
    ) {
        guard events.hasSubscribers else { return events.countUnheard() }
        let frames = events.emit(
            kind, screen: screen, flow: flow(), connection: connection, name: name, serial: serial, placement: placement,
            payload: payload, text: text(), unread: { [connections] in connections[$0]?.pendingBytes })
        for frame in frames {
            if let watcher = connections[frame.connection] { send(frame.body, to: watcher) }
        }
    }
}
