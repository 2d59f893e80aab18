/// Deadlines of one kind that share one timeout, so they pass in the order they were set: a FIFO
/// against a clock the caller passes in (milliseconds). The daemon's handshake, ack and drain
/// deadlines are each one of these; tests move the clock by hand.
/// Inlinable: the daemon checks the next deadline after every input.
public struct DeadlineQueue<Key: Hashable & Sendable>: Sendable, Hashable {
    @usableFromInline
    struct Entry: Hashable, Sendable {
        @usableFromInline let key: Key
        @usableFromInline let at: UInt64
        @inlinable init(key: Key, at: UInt64) {
            self.key = key
            self.at = at
        }
    }

    /// How long after `add` a key's deadline passes.
    public let timeout: UInt64
    @usableFromInline var entries = FIFO<Entry>()

    /// An empty queue with `timeout`.
    @inlinable public init(timeout: UInt64) { self.timeout = timeout }

    /// Sets a deadline for `key` at `now + timeout`.
    @inlinable public mutating func add(_ key: Key, now: UInt64) {
        entries.append(Entry(key: key, at: now &+ min(timeout, UInt64.max - now)))
    }

    /// The earliest deadline, for the driver's timer.
    @inlinable public var next: UInt64? { entries.first?.at }

    /// Deadlines set and not yet taken.
    @inlinable public var count: Int { entries.count }

    /// The key of the oldest deadline.
    @inlinable public var firstKey: Key? { entries.first?.key }

    /// Drops the oldest deadline.
    @inlinable public mutating func dropFirst() {
        if entries.first != nil { entries.removeFirst() }
    }

    /// Takes the keys whose deadline is at or before `now`, oldest first. A key may no longer matter
    /// (its connection closed, its command was acknowledged): the caller checks.
    @inlinable public mutating func expired(now: UInt64) -> [Key] {
        var keys: [Key] = []
        while let first = entries.first, first.at <= now {
            entries.removeFirst()
            keys.append(first.key)
        }
        return keys
    }
}
