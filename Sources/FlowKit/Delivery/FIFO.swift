/// A first-in first-out queue over an array with a moving head: O(1) amortized at both ends, no
/// dependency. Space is reclaimed when the head passes half the storage.
/// Inlinable, so that users in other modules get it specialized (it sits on the daemon's hot path).
@usableFromInline
struct FIFO<Element: Sendable & Hashable>: Sendable, Hashable {
    @usableFromInline var storage: [Element] = []
    @usableFromInline var head = 0

    @inlinable init() {}

    /// The oldest element.
    @inlinable var first: Element? { head < storage.count ? storage[head] : nil }

    /// Elements queued.
    @inlinable var count: Int { storage.count - head }

    /// Appends at the tail.
    @inlinable mutating func append(_ element: Element) { storage.append(element) }

    /// Removes the oldest element; the queue must not be empty.
    @inlinable @discardableResult
    mutating func removeFirst() -> Element {
        let element = storage[head]
        head += 1
        if head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }
}
