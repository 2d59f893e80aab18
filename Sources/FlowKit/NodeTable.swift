/// A map from node ids to values, for the tables that hold one entry per live screen or node (the
/// runtime's screens, the navigation model's nodes, the delivery's screens).
///
/// Open addressing with linear probing, the keys and the values in two arrays, filled up to 7/8 before it doubles
/// (Swift's `Dictionary` doubles at 3/4). Ids are handed out in sequence by one counter, and the
/// Fibonacci hash spreads a run of them evenly over the slots, so probes stay short at that load.
/// Removal shifts the entries that follow back into the hole (no tombstones), and the table halves
/// once it is less than an eighth full, so a daemon that once showed 10^6 screens does not keep
/// their table for months. Measured on `flowbench live-screens` (100,900 screens): a `Dictionary`
/// there has 262,144 slots per table, this one 131,072 (docs/performance.md, "Memory").
///
/// Iteration order is the slots' order: arbitrary, as a `Dictionary`'s.
package struct NodeTable<Value> {
    /// The slots' keys (raw ids; 0, which is `NodeID.none` and never a key, marks an empty slot) and
    /// values, in two arrays: a probe reads only plain integers, never a value (reading an entry
    /// with its value retains and releases everything the value holds).
    private var slotKeys: ContiguousArray<UInt64> = []
    private var slots: ContiguousArray<Value?> = []
    /// Entries stored.
    package private(set) var count = 0
    /// `64 - log2(slots.count)`: the shift that turns a hash into a slot index.
    private var shift = 64

    /// An empty table.
    package init() {}

    /// An empty table with room for `capacity` entries before it grows (removals may shrink it).
    package init(minimumCapacity capacity: Int) {
        reserveCapacity(capacity)
    }

    /// Whether it holds nothing.
    package var isEmpty: Bool { count == 0 }

    /// How many entries fit before the table grows.
    package var capacity: Int { slotKeys.count - slotKeys.count / 8 }

    /// The value for `key`, if any; setting nil removes it. Modified in place (no copy of the value).
    /// `NodeID.none` is never stored (a store traps; a look-up finds nothing).
    package subscript(key: NodeID) -> Value? {
        // A getter, not `_read`: a read coroutine's frame is allocated on the heap where it is not
        // inlined (twice the mallocs on `live-screens`, measured).
        get {
            guard let slot = slot(of: key) else { return nil }
            return slots[slot]
        }
        set {
            // Consumed, not bound: a binding would copy the value (retaining all it holds).
            switch consume newValue {
            case .some(let value): updateValue(value, forKey: key)
            case .none: removeValue(forKey: key)
            }
        }
        _modify {
            if let slot = slot(of: key) {
                // In place: the caller changes the stored value itself, or sets nil to remove it.
                defer { if slots[slot] == nil { vacate(slot) } }
                yield &slots[slot]
            } else {
                var value: Value?
                defer { if let added = value.take() { updateValue(added, forKey: key) } }
                yield &value
            }
        }
    }

    /// The value for `key`, or `defaultValue` (stored on a modification).
    package subscript(key: NodeID, default defaultValue: @autoclosure () -> Value) -> Value {
        get { self[key] ?? defaultValue() }
        _modify {
            if let slot = slot(of: key) {
                yield &slots[slot]!
            } else {
                var value = defaultValue()
                defer { updateValue(value, forKey: key) }
                yield &value
            }
        }
    }

    /// Stores `value` for `key`; returns the value it replaced.
    @discardableResult
    package mutating func updateValue(_ value: consuming Value, forKey key: NodeID) -> Value? {
        precondition(key != .none, "NodeTable: NodeID.none is never a key")
        if let slot = slot(of: key) {
            var replaced: Value? = consume value
            swap(&slots[slot], &replaced)
            return replaced
        }
        if count + 1 > capacity { resize(slotCount: Swift.max(8, slotKeys.count * 2)) }
        var index = home(of: key)
        while slotKeys[index] != 0 { index = (index + 1) & (slotKeys.count - 1) }
        slotKeys[index] = key.rawValue
        slots[index] = value
        count += 1
        return nil
    }

    /// Removes `key`'s entry; returns its value.
    @discardableResult
    package mutating func removeValue(forKey key: NodeID) -> Value? {
        guard let slot = slot(of: key) else { return nil }
        let value = slots[slot].take()
        vacate(slot)
        return value
    }

    /// Removes every entry (and, unless kept, the slots).
    package mutating func removeAll(keepingCapacity keep: Bool = false) {
        if keep {
            for index in slotKeys.indices {
                slotKeys[index] = 0
                slots[index] = nil
            }
        } else {
            slotKeys = []
            slots = []
            shift = 64
        }
        count = 0
    }

    /// Makes room for `capacity` entries without growing (removals may shrink it again).
    package mutating func reserveCapacity(_ capacity: Int) {
        guard capacity > self.capacity else { return }
        var slotCount = 8
        while slotCount - slotCount / 8 < capacity { slotCount *= 2 }
        resize(slotCount: slotCount)
    }

    /// Whether `key` has an entry.
    package func contains(_ key: NodeID) -> Bool { slot(of: key) != nil }

    /// Where an entry is, valid until the table next changes its keys.
    package struct Index: Equatable, Sendable {
        fileprivate let slot: Int
    }

    /// Where `key`'s entry is, if it has one: for reading and changing it in place with `[at:]`
    /// right away (an index is not checked: an insert or removal in between makes it point elsewhere,
    /// so it stays inside the package).
    package func index(forKey key: NodeID) -> Index? { slot(of: key).map(Index.init) }

    /// The value at `index` (from `index(forKey:)`), changed in place.
    package subscript(at index: Index) -> Value {
        get { slots[index.slot]! }
        _modify { yield &slots[index.slot]! }
    }

    /// Runs `body` on `key`'s value in place, or returns nil if there is none: one look-up, and one
    /// exclusive access to a table held in a class's property (`index(forKey:)` then `[at:]` are two,
    /// each checked at run time).
    package mutating func modifyValue<T>(forKey key: NodeID, _ body: (inout Value) throws -> T) rethrows -> T? {
        guard let slot = slot(of: key) else { return nil }
        return try body(&slots[slot]!)
    }

    /// The values transformed, as a dictionary.
    package func mapValues<T>(_ transform: (Value) throws -> T) rethrows -> [NodeID: T] {
        var result: [NodeID: T] = Dictionary(minimumCapacity: count)
        for (key, value) in self { result[key] = try transform(value) }
        return result
    }

    /// The non-nil values transformed, as a dictionary.
    package func compactMapValues<T>(_ transform: (Value) throws -> T?) rethrows -> [NodeID: T] {
        var result: [NodeID: T] = [:]
        for (key, value) in self { if let mapped = try transform(value) { result[key] = mapped } }
        return result
    }

    /// The keys, in iteration order (the values are not read).
    package var keys: Keys { Keys(slotKeys: slotKeys) }

    /// The values, in iteration order.
    package var values: Values { Values(slotKeys: slotKeys, slots: slots) }

    /// The keys of a table.
    package struct Keys: Sequence {
        let slotKeys: ContiguousArray<UInt64>

        package struct Iterator: IteratorProtocol {
            let slotKeys: ContiguousArray<UInt64>
            var index = 0

            package mutating func next() -> NodeID? {
                while index < slotKeys.count {
                    defer { index += 1 }
                    if slotKeys[index] != 0 { return NodeID(rawValue: slotKeys[index]) }
                }
                return nil
            }
        }

        package func makeIterator() -> Iterator { Iterator(slotKeys: slotKeys) }
    }

    /// The values of a table.
    package struct Values: Sequence {
        let slotKeys: ContiguousArray<UInt64>
        let slots: ContiguousArray<Value?>

        package struct Iterator: IteratorProtocol {
            let slotKeys: ContiguousArray<UInt64>
            let slots: ContiguousArray<Value?>
            var index = 0

            package mutating func next() -> Value? {
                while index < slotKeys.count {
                    defer { index += 1 }
                    if slotKeys[index] != 0 { return slots[index] }
                }
                return nil
            }
        }

        package func makeIterator() -> Iterator { Iterator(slotKeys: slotKeys, slots: slots) }
    }

    // MARK: - Slots

    /// Where `key` would be found first.
    private func home(of key: NodeID) -> Int {
        // Fibonacci hashing: the top bits of the product, well spread for consecutive ids.
        Int(truncatingIfNeeded: (key.rawValue &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }

    /// The slot holding `key`, if any.
    private func slot(of key: NodeID) -> Int? {
        guard count > 0, key != .none else { return nil }
        var index = home(of: key)
        while slotKeys[index] != 0 {
            if slotKeys[index] == key.rawValue { return index }
            index = (index + 1) & (slotKeys.count - 1)
        }
        return nil
    }

    /// Empties `slot` (its value already taken) and shifts back the entries of its run that belong
    /// before it.
    private mutating func vacate(_ slot: Int) {
        count -= 1
        let mask = slotKeys.count - 1
        var hole = slot
        var index = (slot + 1) & mask
        while slotKeys[index] != 0 {
            // The entry may move to the hole unless its home lies cyclically in (hole, index].
            let home = home(of: NodeID(rawValue: slotKeys[index]))
            let homeAfterHole = hole <= index ? (home > hole && home <= index) : (home > hole || home <= index)
            if !homeAfterHole {
                slotKeys[hole] = slotKeys[index]
                slots.swapAt(hole, index)
                hole = index
            }
            index = (index + 1) & mask
        }
        slotKeys[hole] = 0
        if slotKeys.count > 64, count < slotKeys.count / 8 { resize(slotCount: slotKeys.count / 2) }
    }

    /// Moves every entry into `slotCount` new slots.
    private mutating func resize(slotCount: Int) {
        var oldKeys = ContiguousArray<UInt64>(repeating: 0, count: slotCount)
        var oldSlots = ContiguousArray<Value?>(repeating: nil, count: slotCount)
        swap(&oldKeys, &slotKeys)
        swap(&oldSlots, &slots)
        shift = 64 - slotCount.trailingZeroBitCount
        let mask = slotCount - 1
        for index in oldKeys.indices where oldKeys[index] != 0 {
            var target = home(of: NodeID(rawValue: oldKeys[index]))
            while slotKeys[target] != 0 { target = (target + 1) & mask }
            slotKeys[target] = oldKeys[index]
            swap(&slots[target], &oldSlots[index])
        }
    }
}

extension NodeTable: Sequence {
    /// Iterates the entries in slot order.
    package struct Iterator: IteratorProtocol {
        let slotKeys: ContiguousArray<UInt64>
        let slots: ContiguousArray<Value?>
        var index = 0

        package mutating func next() -> (key: NodeID, value: Value)? {
            while index < slotKeys.count {
                defer { index += 1 }
                if slotKeys[index] != 0 { return (NodeID(rawValue: slotKeys[index]), slots[index]!) }
            }
            return nil
        }
    }

    package func makeIterator() -> Iterator { Iterator(slotKeys: slotKeys, slots: slots) }

    package var underestimatedCount: Int { count }
}

extension NodeTable: ExpressibleByDictionaryLiteral {
    /// A table of these entries (a later duplicate key wins).
    package init(dictionaryLiteral elements: (NodeID, Value)...) {
        self.init(minimumCapacity: elements.count)
        for (key, value) in elements { updateValue(value, forKey: key) }
    }
}

extension NodeTable: Equatable where Value: Equatable {
    /// The same keys with equal values, whatever the slots' order.
    package static func == (lhs: NodeTable, rhs: NodeTable) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.allSatisfy { rhs[$0.key] == $0.value }
    }
}

extension NodeTable: Hashable where Value: Hashable {
    /// Independent of the slots' order (as `Dictionary`'s).
    package func hash(into hasher: inout Hasher) {
        var combined = 0
        for (key, value) in self {
            var entryHasher = Hasher()
            entryHasher.combine(key)
            entryHasher.combine(value)
            combined ^= entryHasher.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

extension NodeTable: Sendable where Value: Sendable {}
extension NodeTable.Iterator: Sendable where Value: Sendable {}
extension NodeTable.Values: Sendable where Value: Sendable {}
extension NodeTable.Values.Iterator: Sendable where Value: Sendable {}
extension NodeTable.Keys: Sendable {}
extension NodeTable.Keys.Iterator: Sendable {}

extension NodeTable: CustomStringConvertible {
    /// `[#3: …, #4: …]`, by id.
    package var description: String {
        let entries = sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        return "[\(entries.joined(separator: ", "))]"
    }
}
