/// Deadlines of one kind that share one timeout, so they pass in the order they were set: a FIFO
/// against a clock the caller passes in (milliseconds). The daemon's handshake, ack and drain
/// deadlines are each one of these; tests move the clock by hand.
public struct DeadlineQueue<Key: Hashable & Sendable>: Sendable, Hashable {
    private struct Entry: Hashable, Sendable {
        let key: Key
        let at: UInt64
    }

    /// How long after `add` a key's deadline passes.
    public let timeout: UInt64
    private var entries = FIFO<Entry>()

    /// An empty queue with `timeout`.
    public init(timeout: UInt64) { self.timeout = timeout }

    /// Sets a deadline for `key` at `now + timeout`.
    public mutating func add(_ key: Key, now: UInt64) {
        entries.append(Entry(key: key, at: now &+ min(timeout, UInt64.max - now)))
    }

    /// The earliest deadline, for the driver's timer.
    public var next: UInt64? { entries.first?.at }

    /// Deadlines set and not yet taken.
    public var count: Int { entries.count }

    /// Takes the keys whose deadline is at or before `now`, oldest first. A key may no longer matter
    /// (its connection closed, its command was acknowledged): the caller checks.
    public mutating func expired(now: UInt64) -> [Key] {
        var keys: [Key] = []
        while let first = entries.first, first.at <= now {
            entries.removeFirst()
            keys.append(first.key)
        }
        return keys
    }
}
