import FlowKit
import FlowWire

/// The live event stream as the rest of the daemon reaches it: the bus is the debug surface's alone;
/// the core emits its connections' events, subscribes watchers by id, and hands the staged frames to
/// their connections at the end of each iteration through `handEvents`.
extension AppCore {
    /// Emits an event of the daemon's own (a connection came, left, or finished its handshake; the
    /// shutdown), built only when someone listens.
    func emit(_ kind: Flowd_V1_EventKind, connection: UInt64 = 0, name: String = "", text: @autoclosure () -> String) {
        debug.events.emit(kind, connection: connection, name: name, text: text())
    }

    /// Whether events are staged for watchers (a wake-up hands them out; a lagging watcher waits for
    /// the next iteration's end, as any).
    var hasStagedEvents: Bool {
        let bus = debug.events
        return bus.hasSubscribers && bus.hasStaged
    }

    /// Starts or replaces the subscription of the debug client on `watcher`.
    func subscribe(_ watcher: UInt64, _ request: Flowd_V1_Subscribe) { debug.events.subscribe(watcher, request) }

    /// The debug client on `watcher` stops watching (it asked, or its connection closed).
    func unsubscribe(_ watcher: UInt64) { debug.events.unsubscribe(watcher) }

    /// Whether events wait for their watchers, or a watcher waits to be told what it missed.
    /// Read at every iteration's end: the stored `hasSubscribers` first, as the hot path reads it.
    var hasEventsToHand: Bool {
        let bus = debug.events
        return bus.hasSubscribers && (bus.hasStaged || bus.hasLaggingWatchers)
    }

    /// Hands the staged events to their watchers: `pendingBytes` gives a watcher's unread bytes (nil:
    /// its connection is gone or closing), `queue` queues a frame to it (false: over its maximum frame
    /// size). A lagging watcher's events are counted, and it is told with `Lagged` once it can take
    /// frames. Returns the events over a watcher's maximum frame size, for the log.
    func handEvents(pendingBytes: (UInt64) -> Int?, queue: (UInt64, Flowd_V1_Envelope.OneOf_Body) -> Bool) -> Int {
        let bus = debug.events
        for staged in bus.takeStaged() {
            guard let pending = pendingBytes(staged.watcher),
                  case .send(let lagged) = bus.admit(staged, pendingBytes: pending) else { continue }
            if let lagged { _ = queue(staged.watcher, .lagged(lagged)) }
            if queue(staged.watcher, .event(staged.event)) { bus.delivered() } else { bus.refused(staged) }
        }
        if bus.hasLaggingWatchers {
            for (watcher, lagged) in bus.catchUp(pendingBytes: pendingBytes) { _ = queue(watcher, .lagged(lagged)) }
        }
        return bus.takeOversized()
    }
}
