import FlowKit
import FlowWire
import Foundation

/// The live event stream for debug clients (`flowctl watch`, `record`).
/// Every event takes the next sequence number whether or not anyone listens;
/// building and sending happen only for matching subscribers. A subscriber
/// whose unread bytes pass `lagLimit` is skipped (events counted), and gets a
/// `Lagged` notice as soon as it catches up (`catchUp()`, at the end of each loop
/// iteration while some watcher lags), not only with the next event: a slow
/// watcher never slows the daemon, and never misses events without being told.
/// An event over the watcher's maximum frame size is counted the same way.
final class EventBus {
    /// One subscribed connection.
    struct Subscription {
        /// The watcher; it leaves the bus when it closes (`unsubscribe`).
        let connection: Connection
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
    /// Watchers given frames since `takeWatchersToWrite()`: written at the end of the iteration.
    private(set) var watchersToWrite: [Connection] = []
    /// Whether some watcher has events counted as dropped and not told yet (`catchUp()` tells it).
    private(set) var hasLaggingWatchers = false
    /// Events over a watcher's maximum frame size since `takeOversized()` (the daemon logs them).
    private(set) var oversized = 0

    init() {}

    /// Whether anyone listens: read on the hot path, so kept as a field of its own, which no call
    /// changes in place (and the compiler checks statically), not read from `subscriptions`.
    private(set) var hasSubscribers = false

    /// Starts or replaces the subscription of `connection`.
    func subscribe(_ connection: Connection, _ request: Flowd_V1_Subscribe) {
        subscriptions[connection.id] = Subscription(
            connection: connection, kinds: Set(request.kinds), flow: request.flowID, screen: request.screenID, payloads: request.payloads)
        hasSubscribers = true
    }

    func unsubscribe(_ connection: UInt64) {
        subscriptions[connection] = nil
        hasSubscribers = !subscriptions.isEmpty
    }

    /// An event nobody listens to: it takes its sequence number and is not built (the hot path).
    func countUnheard() { lastSeq += 1 }

    /// The watchers given frames since the last call (each may appear more than once).
    func takeWatchersToWrite() -> [Connection] {
        defer { watchersToWrite.removeAll(keepingCapacity: true) }
        return watchersToWrite
    }

    /// Emits one event: it takes the next sequence number, and is built and queued only for the
    /// matching subscribers (the hot path, with none, is one increment). What it costs to say comes
    /// as autoclosures, evaluated only when someone listens.
    func emit(
        _ kind: Flowd_V1_EventKind, screen: ScreenID? = nil, flow flowOf: @autoclosure () -> FlowID? = nil, connection: UInt64 = 0,
        name: String = "", serial: UInt64 = 0, placement: Flowd_V1_Placement? = nil,
        payload payloadOf: @autoclosure () -> Flowd_V1_Payload? = nil, text: @autoclosure () -> String
    ) {
        lastSeq += 1
        guard hasSubscribers else { return }
        let flow = flowOf()
        var event: Flowd_V1_Event?
        var payload: Flowd_V1_Payload??
        for (id, var subscription) in subscriptions {
            let watcher = subscription.connection
            guard subscription.matches(kind, flow: flow, screen: screen), !watcher.isClosing else { continue }
            if watcher.pendingBytes > lagLimit {
                subscription.dropped += 1
                subscriptions[id] = subscription
                hasLaggingWatchers = true
                continue
            }
            if subscription.dropped > 0 {
                Self.tellLagged(&subscription, nextSeq: lastSeq)
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
            if subscription.payloads {
                if payload == nil { payload = .some(payloadOf()) }
                if let value = payload ?? nil { copy.payload = value }
            }
            if watcher.queue(.event(copy)) {
                sent += 1
            } else if !watcher.isClosing {
                // Over the watcher's maximum frame size: counted, and told with `Lagged` as any event
                // the watcher missed; the daemon logs it (`takeOversized`).
                subscription.dropped += 1
                subscriptions[id] = subscription
                hasLaggingWatchers = true
                oversized += 1
            }
            watchersToWrite.append(watcher)
        }
    }

    /// Queues `Lagged` to `subscription`'s watcher: the events dropped so far, and the seq events
    /// resume at.
    private static func tellLagged(_ subscription: inout Subscription, nextSeq: UInt64) {
        var lagged = Flowd_V1_Lagged()
        lagged.dropped = subscription.dropped
        lagged.nextSeq = nextSeq
        subscription.connection.queue(.lagged(lagged))
        subscription.dropped = 0
    }

    /// Tells each watcher that missed events and can take frames again (its unread bytes are back
    /// under `lagLimit`) with `Lagged`, without waiting for the next event: a watcher that drained its
    /// socket knows at once. The daemon calls it at the end of each loop iteration while
    /// `hasLaggingWatchers` (a write that drains a socket ends an iteration).
    func catchUp() {
        var stillLagging = false
        for (id, var subscription) in subscriptions where subscription.dropped > 0 {
            let watcher = subscription.connection
            guard !watcher.isClosing else { continue }
            guard watcher.pendingBytes <= lagLimit else {
                stillLagging = true
                continue
            }
            Self.tellLagged(&subscription, nextSeq: lastSeq + 1)
            subscriptions[id] = subscription
            watchersToWrite.append(watcher)
        }
        hasLaggingWatchers = stillLagging
    }

    /// The events over a watcher's maximum frame size since the last call.
    func takeOversized() -> Int {
        defer { oversized = 0 }
        return oversized
    }
}
