import FlowKit
import FlowdTestSupport
import Testing

/// `NodeTable` against `Dictionary`: the same answers after every step of seeded random programs of
/// inserts, in-place changes, removals and clears, with ids as the runtime hands them out (a rising
/// counter) and as a hostile pattern (multiples of the slot count, which share a home under a
/// plain modulo).
@Suite struct NodeTableTests {
    static func check(_ table: NodeTable<[Int]>, _ model: [NodeID: [Int]], _ context: String) {
        #expect(table.count == model.count, "\(context)")
        #expect(table.isEmpty == model.isEmpty, "\(context)")
        var seen = 0
        for (key, value) in table {
            #expect(model[key] == value, "\(context): \(key)")
            seen += 1
        }
        #expect(seen == model.count, "\(context)")
        for (key, value) in model { #expect(table[key] == value, "\(context): \(key)") }
        #expect(Set(table.keys) == Set(model.keys), "\(context)")
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func behavesAsADictionary(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var table = NodeTable<[Int]>()
        var model: [NodeID: [Int]] = [:]
        var next: UInt64 = 2
        // Hostile ids: the same low bits, so a modulo hash would put them all in one run.
        let stride: UInt64 = seed.isMultiple(of: 2) ? 1 : 1024
        for step in 0..<6_000 {
            let roll = Int.random(in: 0..<100, using: &random)
            let known = Array(model.keys)
            switch roll {
            case 0..<45:
                let key = NodeID(rawValue: next * stride)
                next += 1
                #expect(table.updateValue([step], forKey: key) == nil)
                model[key] = [step]
            case 45..<60 where !known.isEmpty:
                // In place, through `_modify`.
                let key = known.randomElement(using: &random)!
                table[key]?.append(step)
                model[key]?.append(step)
            case 60..<90 where !known.isEmpty:
                let key = known.randomElement(using: &random)!
                if roll.isMultiple(of: 2) {
                    #expect(table.removeValue(forKey: key) == model.removeValue(forKey: key))
                } else {
                    table[key] = nil
                    model[key] = nil
                }
            case 90..<95:
                // Absent keys: a read, a removal, and a `_modify` that leaves nothing.
                let key = NodeID(rawValue: 1 << 40 | next * stride)  // never handed out below
                #expect(table[key] == nil)
                #expect(table.removeValue(forKey: key) == nil)
                table[key]?.append(1)
                #expect(!table.contains(key))
            case 95..<97:
                let key = NodeID(rawValue: 1 << 41 | UInt64(step))
                table[key, default: []].append(step)
                model[key, default: []].append(step)
            case 97 where step.isMultiple(of: 5):
                table.removeAll(keepingCapacity: roll.isMultiple(of: 2))
                model.removeAll()
            default:
                break
            }
            if step.isMultiple(of: 97) { Self.check(table, model, "seed \(seed), step \(step)") }
        }
        Self.check(table, model, "seed \(seed), end")
    }

    @Test func growsAtSevenEighthsAndShrinksBelowAnEighth() {
        var table = NodeTable<Int>()
        for id in 2..<(2 + 114_688) { table[NodeID(rawValue: UInt64(id))] = id }
        // 114,688 = 7/8 of 131,072: still in 131,072 slots (a Dictionary has 262,144 here).
        #expect(table.capacity == 114_688)
        table[NodeID(rawValue: 1_000_000)] = 0
        #expect(table.capacity == 229_376)
        for id in 2..<(2 + 114_688) { table[NodeID(rawValue: UInt64(id))] = nil }
        #expect(table.count == 1)
        #expect(table.capacity <= 56)
        #expect(table[NodeID(rawValue: 1_000_000)] == 0)
    }

    @Test func equalityAndHashIgnoreTheOrderOfInsertion() {
        var left = NodeTable<String>()
        var right = NodeTable<String>(minimumCapacity: 1_000)
        for id in 2...300 { left[NodeID(rawValue: UInt64(id))] = "\(id)" }
        for id in (2...300).reversed() { right[NodeID(rawValue: UInt64(id))] = "\(id)" }
        #expect(left == right)
        #expect(left.hashValue == right.hashValue)
        right[NodeID(rawValue: 2)] = "other"
        #expect(left != right)
        let literal: NodeTable<String> = [NodeID(rawValue: 3): "c", NodeID(rawValue: 2): "b"]
        #expect(literal.description == "[#2: b, #3: c]")
    }
}
