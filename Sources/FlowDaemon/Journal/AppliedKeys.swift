/// The keys of the latest inputs hosts gave a key (`Output.key`, `UserNavigation.key`): an input
/// whose key is here was applied already and is dropped — what lets a host that lost its
/// connection send again what it is not sure the daemon got (docs/protocol.md §20). Journaled with
/// the inputs, so it survives a restart. Bounded: the oldest key is forgotten first.
struct AppliedKeys {
    /// How many keys are remembered: far more than a host has in flight when its connection drops.
    static let capacity = 4_096

    private var members: Set<UInt64> = []
    private var order: [UInt64] = []
    private var next = 0

    init() {}

    /// Remembers `keys`, oldest first (a checkpoint's).
    init(_ keys: [UInt64]) {
        for key in keys { insert(key) }
    }

    /// The keys remembered, oldest first (what a checkpoint keeps).
    var oldestFirst: [UInt64] { Array(order[next...] + order[..<next]) }

    func contains(_ key: UInt64) -> Bool { key != 0 && members.contains(key) }

    mutating func insert(_ key: UInt64) {
        guard key != 0, members.insert(key).inserted else { return }
        if order.count < Self.capacity {
            order.append(key)
        } else {
            members.remove(order[next])
            order[next] = key
            next = (next + 1) % Self.capacity
        }
    }
}
