/// A first-in first-out queue over an array with a moving head: O(1) amortized at both ends, no
/// dependency. Space is reclaimed when the head passes half the storage.
struct FIFO<Element: Sendable & Hashable>: Sendable, Hashable {
    private var storage: [Element] = []
    private var head = 0

    /// The oldest element.
    var first: Element? { head < storage.count ? storage[head] : nil }

    /// Elements queued.
    var count: Int { storage.count - head }

    /// Appends at the tail.
    mutating func append(_ element: Element) { storage.append(element) }

    /// Removes the oldest element; the queue must not be empty.
    @discardableResult
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
