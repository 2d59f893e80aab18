import FlowKit
import FlowWire
import Foundation

/// The live event stream for debug clients (`flowctl watch`, `record`), by watcher (connection) id:
/// it never sees a connection. Every event takes the next sequence number whether or not anyone
/// listens; an event is built only for matching subscribers, and staged for each of them. At the end
/// of each loop iteration the core hands the staged frames to the watchers' connections, asking
/// `admit` for each: a watcher whose unread bytes pass `lagLimit` is skipped (events counted), and
/// gets a `Lagged` notice before its next event, or as soon as it catches up (`catchUp`, while some
/// watcher lags): a slow watcher never slows the daemon, and never misses events without being told.
/// An event over the watcher's maximum frame size is counted the same way (`refused`).
final class EventBus {
    /// One watcher's filter.
    struct Subscription {
        var kinds: Set<Flowd_V1_EventKind>
        var flow: UInt64
        var screen: UInt64
        var payloads: Bool

        func matches(_ kind: Flowd_V1_EventKind, flow: FlowID?, screen: ScreenID?) -> Bool {
            (kinds.isEmpty || kinds.contains(kind))
                && (self.flow == 0 || flow?.rawValue == self.flow)
                && (self.screen == 0 || screen?.rawValue == self.screen)
        }
    }

    /// An event for one watcher, staged until the end of the loop iteration.
    struct Staged {
        let watcher: UInt64
        let event: Flowd_V1_Event
    }

    /// What becomes of a staged event, given its watcher's unread bytes.
    enum Admission: Equatable {
        /// The watcher lags: the event is counted as missed.
        case skip
        /// Queue it, after `lagged` when the watcher missed events before it.
        case send(lagged: Flowd_V1_Lagged?)
    }

    /// The seq of the last event emitted.
    private(set) var lastSeq: UInt64 = 0
    private var subscriptions: [UInt64: Subscription] = [:]
    /// Events each watcher missed and was not told of yet.
    private var missed: [UInt64: UInt64] = [:]
    /// Events past `maxStaged` in this iteration, per watcher: they come after everything staged, so
    /// they join `missed` once the staged events were handed out (`catchUp`).
    private var overflow: [UInt64: UInt64] = [:]
    /// Events staged in this iteration, in order.
    private var staged: [Staged] = []
    /// Unread bytes beyond which a watcher is considered lagging.
    var lagLimit = 256 << 10
    /// Events staged in one iteration at most (all watchers together); past it, events are counted as
    /// missed, so a burst (a shutdown unwinding ten thousand flows) holds a bounded batch.
    static let maxStaged = 65_536
    /// Events sent to subscribers, for `Stats.events_sent`.
    private(set) var sent: UInt64 = 0
    /// Events over a watcher's maximum frame size since `takeOversized()` (the daemon logs them).
    private(set) var oversized = 0

    init() {}

    /// Whether anyone listens: read on the hot path, so kept as a field of its own, which no call
    /// changes in place (and the compiler checks statically), not read from `subscriptions`.
    private(set) var hasSubscribers = false

    /// Whether events wait to be handed to their watchers.
    var hasStaged: Bool { !staged.isEmpty }

    /// Whether some watcher missed events and was not told yet (`catchUp` tells it).
    var hasLaggingWatchers: Bool { !missed.isEmpty || !overflow.isEmpty }

    /// Starts or replaces the subscription of `watcher`.
    func subscribe(_ watcher: UInt64, _ request: Flowd_V1_Subscribe) {
        subscriptions[watcher] = Subscription(kinds: Set(request.kinds), flow: request.flowID, screen: request.screenID, payloads: request.payloads)
        hasSubscribers = true
    }

    func unsubscribe(_ watcher: UInt64) {
        guard subscriptions.removeValue(forKey: watcher) != nil else { return }
        missed[watcher] = nil
        overflow[watcher] = nil
        hasSubscribers = !subscriptions.isEmpty
        // Nothing staged is handed out without a subscriber (`hasEventsToHand` reads that first).
        if !hasSubscribers { staged.removeAll() }
    }

    /// An event nobody listens to: it takes its sequence number and is not built (the hot path).
    func countUnheard() { lastSeq += 1 }

    /// Emits one event: it takes the next sequence number, and is built and staged only for the
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
        for (id, subscription) in subscriptions where subscription.matches(kind, flow: flow, screen: screen) {
            guard staged.count < Self.maxStaged else {
                overflow[id, default: 0] += 1
                continue
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
            staged.append(Staged(watcher: id, event: copy))
        }
    }

    /// The events staged since the last call, in order.
    func takeStaged() -> [Staged] {
        defer { staged.removeAll(keepingCapacity: true) }
        return staged
    }

    /// Whether `event` goes to its watcher, whose connection holds `pendingBytes` unread: not while
    /// it lags (counted); after a `Lagged` when it missed events before.
    func admit(_ event: Staged, pendingBytes: Int) -> Admission {
        guard subscriptions[event.watcher] != nil else { return .skip }
        if pendingBytes > lagLimit {
            missed[event.watcher, default: 0] += 1
            return .skip
        }
        return .send(lagged: takeLagged(event.watcher, nextSeq: event.event.seq))
    }

    /// The event was queued to its watcher.
    func delivered() { sent += 1 }

    /// The event was over its watcher's maximum frame size: counted, and told with `Lagged` as any
    /// event the watcher missed; the daemon logs it (`takeOversized`).
    func refused(_ event: Staged) {
        missed[event.watcher, default: 0] += 1
        oversized += 1
    }

    /// The `Lagged` each watcher that missed events and can take frames again (`pendingBytes`: its
    /// unread bytes, nil once its connection is gone or closing) is to be told now, without waiting
    /// for its next event: a watcher that drained its socket knows at once. The daemon asks at the
    /// end of each loop iteration while `hasLaggingWatchers` (a write that drains a socket ends an
    /// iteration).
    func catchUp(pendingBytes: (UInt64) -> Int?) -> [(watcher: UInt64, lagged: Flowd_V1_Lagged)] {
        for (watcher, count) in overflow { missed[watcher, default: 0] += count }
        overflow.removeAll()
        var told: [(watcher: UInt64, lagged: Flowd_V1_Lagged)] = []
        for watcher in missed.keys.sorted() {
            guard let pending = pendingBytes(watcher), pending <= lagLimit,
                  let lagged = takeLagged(watcher, nextSeq: lastSeq + 1) else { continue }
            told.append((watcher, lagged))
        }
        return told
    }

    /// `Lagged` for the events `watcher` missed (nil: none), and the seq events resume at.
    private func takeLagged(_ watcher: UInt64, nextSeq: UInt64) -> Flowd_V1_Lagged? {
        guard let count = missed.removeValue(forKey: watcher) else { return nil }
        var lagged = Flowd_V1_Lagged()
        lagged.dropped = count
        lagged.nextSeq = nextSeq
        return lagged
    }

    /// The events over a watcher's maximum frame size since the last call.
    func takeOversized() -> Int {
        defer { oversized = 0 }
        return oversized
    }
}
