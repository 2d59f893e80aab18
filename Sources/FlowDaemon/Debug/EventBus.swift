import FlowKit
import FlowWire
import Foundation

/// The live event stream for debug clients (`flowctl watch`, `record`).
/// Every event takes the next sequence number whether or not anyone listens;
/// building and sending happen only for matching subscribers. A subscriber
/// whose unread bytes pass `lagLimit` is skipped (events counted), and gets a
/// `Lagged` notice when it catches up: a slow watcher never slows the daemon.
final class EventBus {
    /// One subscribed connection.
    struct Subscription {
        var kinds: Set<Flowd_V1_EventKind>
        var flow: UInt64
        var screen: UInt64
        var payloads: Bool
        var dropped: UInt64 = 0

        func matches(_ kind: Flowd_V1_EventKind, flow: FlowID?, screen: ScreenID?) -> Bool {
            (kinds.isEmpty || kinds.contains(kind))
                && (self.flow == 0 || flow?.rawValue == self.flow)
                && (self.screen == 0 || screen?.rawValue == self.screen)
        }
    }

    /// The seq of the last event emitted.
    private(set) var lastSeq: UInt64 = 0
    private var subscriptions: [UInt64: Subscription] = [:]
    /// Unread bytes beyond which a watcher is considered lagging.
    var lagLimit = 256 << 10
    /// Events sent to subscribers, for `Stats.events_sent`.
    private(set) var sent: UInt64 = 0

    init() {}

    var hasSubscribers: Bool { !subscriptions.isEmpty }

    /// Starts or replaces the subscription of `connection`.
    func subscribe(_ connection: UInt64, _ request: Flowd_V1_Subscribe) {
        subscriptions[connection] = Subscription(
            kinds: Set(request.kinds), flow: request.flowID, screen: request.screenID, payloads: request.payloads)
    }

    func unsubscribe(_ connection: UInt64) {
        subscriptions[connection] = nil
    }

    /// An event nobody listens to: it takes its sequence number and is not built (the hot path).
    func countUnheard() { lastSeq += 1 }

    /// Emits one event: returns the frames for every matching subscriber (the caller sends them).
    /// `unread` gives the bytes a subscriber has not read yet (nil: it is gone).
    func emit(
        _ kind: Flowd_V1_EventKind, screen: ScreenID? = nil, flow flowOf: @autoclosure () -> FlowID? = nil, connection: UInt64 = 0,
        name: String = "", serial: UInt64 = 0, placement: Flowd_V1_Placement? = nil, payload: Flowd_V1_Payload? = nil,
        text: @autoclosure () -> String, unread: (UInt64) -> Int?
    ) -> [(connection: UInt64, body: Flowd_V1_Envelope.OneOf_Body)] {
        lastSeq += 1
        guard !subscriptions.isEmpty else { return [] }
        var frames: [(connection: UInt64, body: Flowd_V1_Envelope.OneOf_Body)] = []
        // Looked up only when someone listens: events are emitted on the hot path.
        let flow = flowOf()
        var event: Flowd_V1_Event?
        for (id, var subscription) in subscriptions {
            guard subscription.matches(kind, flow: flow, screen: screen), let pending = unread(id) else { continue }
            if pending > lagLimit {
                subscription.dropped += 1
                subscriptions[id] = subscription
                continue
            }
            if subscription.dropped > 0 {
                var lagged = Flowd_V1_Lagged()
                lagged.dropped = subscription.dropped
                lagged.nextSeq = lastSeq
                frames.append((id, .lagged(lagged)))
                subscription.dropped = 0
                subscriptions[id] = subscription
            }
            if event == nil {
                var built = Flowd_V1_Event()
                built.seq = lastSeq
                built.timeUnixNanos = Int64(Date().timeIntervalSince1970 * 1e9)
                built.kind = kind
                built.flowID = flow?.rawValue ?? 0
                built.screenID = screen?.rawValue ?? 0
                built.connectionID = connection
                built.name = name
                built.serial = serial
                if let placement { built.placement = placement }
                built.text = text()
                event = built
            }
            guard var copy = event else { continue }
            if subscription.payloads, let payload { copy.payload = payload }
            frames.append((id, .event(copy)))
            sent += 1
        }
        return frames
    }
}
