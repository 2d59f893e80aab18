/// Deadlines of any length, by key: the flows' timers, against a clock the caller passes in
/// (milliseconds), so the embedded daemon's manual clock fires them. Unlike `DeadlineQueue` (one
/// timeout for all, a FIFO) a deadline can be removed, and they pass in deadline order, ties in the
/// order they were added. Sorted array: adding and removing cost O(n), few timers are ever set.
package struct TimerQueue<Key: Hashable & Sendable>: Sendable {
    private struct Entry: Sendable {
        let at: UInt64
        let key: Key
    }

    /// Sorted by deadline, then by insertion.
    private var entries: [Entry] = []

    /// An empty queue.
    package init() {}

    /// Sets `key`'s deadline at `at` (replacing one it had).
    package mutating func add(_ key: Key, at: UInt64) {
        remove(key)
        // After every entry due at or before `at`: ties keep the order they were added in.
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].at <= at { low = middle + 1 } else { high = middle }
        }
        entries.insert(Entry(at: at, key: key), at: low)
    }

    /// Removes `key`'s deadline; returns whether it had one.
    @discardableResult
    package mutating func remove(_ key: Key) -> Bool {
        guard let index = entries.firstIndex(where: { $0.key == key }) else { return false }
        entries.remove(at: index)
        return true
    }

    /// Whether `key` has a deadline.
    package func contains(_ key: Key) -> Bool { entries.contains { $0.key == key } }

    /// The earliest deadline, for the driver's timer.
    package var next: UInt64? { entries.first?.at }

    /// Deadlines set and not yet taken.
    package var count: Int { entries.count }

    /// Takes the keys whose deadline is at or before `now`, earliest first.
    package mutating func expired(now: UInt64) -> [Key] {
        let passed = entries.prefix { $0.at <= now }
        entries.removeFirst(passed.count)
        return passed.map(\.key)
    }

    /// Removes every deadline.
    package mutating func removeAll() { entries.removeAll() }
}
