/// Finds hung screen hosts, as Android's ANR and Qt Application Manager's watchdog do: a host that
/// has had commands unacknowledged for two ticks in a row is pinged; one that answers no `Ping`
/// and sends nothing else either within `timeout` is hung. A host that acks promptly is never
/// pinged; a busy one whose `Pong` waits behind its own outputs is heard and left alone. A value: the daemon ticks it
/// with the clock and the hosts awaiting acks, and acts on what it says (send the pings, kill or
/// disconnect the hung). Ticks come every quarter of the timeout while anything may be pending, so
/// a host that stops is found within 1.75 × `timeout` of its first unacknowledged command.
struct HangWatchdog {
    /// Milliseconds a pinged host has to answer.
    let timeout: UInt64
    /// When the next tick is due (nil: nothing to watch).
    private(set) var nextTick: UInt64?
    private var outstanding: [UInt64: Ping] = [:]
    /// A ping waiting for its `Pong`.
    private struct Ping {
        let nonce: UInt64
        let sentAt: UInt64
        /// Whether bytes arrived from the host since the ping.
        var heard = false
    }
    /// Hosts that had commands unacknowledged at the last tick.
    private var awaitingLastTick: Set<UInt64> = []
    private var lastNonce: UInt64 = 0

    /// What the daemon must do.
    enum Action: Equatable {
        /// Send `Ping {nonce}` to the host.
        case ping(host: UInt64, nonce: UInt64)
        /// The host answered no ping for `silentFor` milliseconds with commands unacknowledged.
        case hung(host: UInt64, silentFor: UInt64)
    }

    init(timeout: UInt64) { self.timeout = timeout }

    private var interval: UInt64 { max(timeout / 4, 1) }

    /// Something may be pending from `now` on: make sure a tick comes.
    mutating func wake(now: UInt64) {
        if nextTick == nil { nextTick = now + interval }
    }

    /// Whether a ping waits for its `Pong` (only then does `heard` matter).
    var isPinging: Bool { !outstanding.isEmpty }

    /// Bytes arrived from `host`: if it was pinged, it is alive.
    mutating func heard(from host: UInt64, now: UInt64) {
        if let ping = outstanding[host], now >= ping.sentAt { outstanding[host]?.heard = true }
    }

    /// One tick at `now`; `awaitingAcks` are the hosts with commands unacknowledged.
    mutating func tick(now: UInt64, awaitingAcks: Set<UInt64>) -> [Action] {
        var actions: [Action] = []
        var hung: Set<UInt64> = []
        for (host, ping) in outstanding.sorted(by: { $0.key < $1.key }) where now >= ping.sentAt + timeout {
            outstanding[host] = nil
            // Heard from since the ping: alive (its Pong may wait behind its outputs); pinged again.
            if ping.heard { continue }
            hung.insert(host)
            actions.append(.hung(host: host, silentFor: now - ping.sentAt))
        }
        let slow = awaitingAcks.intersection(awaitingLastTick)
        awaitingLastTick = awaitingAcks.subtracting(hung)
        for host in slow.sorted() where outstanding[host] == nil && !hung.contains(host) {
            lastNonce += 1
            outstanding[host] = Ping(nonce: lastNonce, sentAt: now)
            actions.append(.ping(host: host, nonce: lastNonce))
        }
        nextTick = outstanding.isEmpty && awaitingAcks.isEmpty ? nil : now + interval
        return actions
    }

    /// A `Pong` from `host`: its ping is answered if the nonce is the watchdog's.
    mutating func pong(from host: UInt64, nonce: UInt64) {
        if outstanding[host]?.nonce == nonce { outstanding[host] = nil }
    }

    /// The host is gone.
    mutating func forget(_ host: UInt64) {
        outstanding[host] = nil
        awaitingLastTick.remove(host)
    }
}
