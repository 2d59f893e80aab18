/// A fast hash of a 64-bit id for `Set`/`Dictionary` (SplitMix64's finalizer over the id and the
/// table's seed) instead of SipHash: every output looks up its screen in several dictionaries, and
/// SipHash was about a tenth of the daemon's instructions per output. The ids are the runtime's own
/// counters, so no peer chooses them to collide (SipHash's reason to be).

package func mixedIDHash(_ raw: UInt64, seed: Int) -> Int {
    var x = raw &+ UInt64(bitPattern: Int64(seed)) &* 0x9E37_79B9_7F4A_7C15
    x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
    x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
    return Int(truncatingIfNeeded: x ^ (x >> 31))
}

extension NodeID {
    /// Hashes the raw number.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    /// `mixedIDHash`: the customization point `Set` and `Dictionary` call.
    public func _rawHashValue(seed: Int) -> Int { mixedIDHash(rawValue, seed: seed) }
}

extension FlowID {
    /// Hashes the raw number.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    /// `mixedIDHash`: the customization point `Set` and `Dictionary` call.
    public func _rawHashValue(seed: Int) -> Int { mixedIDHash(rawValue, seed: seed) }
}
