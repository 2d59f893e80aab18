import FlowKit

/// A rolling check of the screen commands the runtime made, stored with each journaled batch: a
/// restore that replays the batch must arrive at the same value, or the flows did not replay the
/// same (they are not deterministic in their inputs, or the app changed) — divergence.
///
/// It covers what the user sees: which screens were placed where, moved, updated and dismissed, and
/// which flow owned them. Not the states' bytes: a state holding a `Dictionary` encodes its keys in
/// an order that changes from one process to the next. FNV-1a over a fixed encoding, so the value is
/// the same in every process (Swift's `Hasher` is seeded per process).
struct PlacementCheck: Equatable {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    init() {}

    /// The check a checkpoint carries (`stored`), going on from there.
    init(stored: Int64) { value = UInt64(bitPattern: stored) }

    /// The journal's column: the same bits, signed.
    var stored: Int64 { Int64(bitPattern: value) }

    mutating func add(_ command: ScreenCommand) {
        switch command {
        case .place(let place):
            mix(1)
            mix(place.screen.rawValue)
            mix(place.owner.rawValue)
            for byte in place.kind.utf8 { mixByte(byte) }
            mix(place.placement)
        case .update(let screen, _, let owner):
            mix(2)
            mix(screen.rawValue)
            mix(owner.rawValue)
        case .placementChanged(let screen, let placement, _, let owner):
            mix(3)
            mix(screen.rawValue)
            mix(owner.rawValue)
            mix(placement)
        case .dismiss(let screen, _, _):
            mix(4)
            mix(screen.rawValue)
        }
    }

    private mutating func mix(_ placement: Placement) {
        for step in placement.path {
            switch step {
            case .window: mix(10)
            case .otherWindow(let window, let display):
                mix(14); mix(window.rawValue)
                for byte in display.utf8 { mix(UInt64(byte)) }
            case .stack(let stack): mix(11); mix(stack.rawValue)
            case .tab(let bar, let index, let count): mix(12); mix(bar.rawValue); mix(UInt64(index)); mix(UInt64(count))
            case .modal(let presenter): mix(13); mix(presenter.rawValue)
            }
        }
        mix(UInt64(placement.index))
        mix(placement.isTopMost ? 1 : 0)
        mix(placement.isVisible ? 1 : 0)
    }

    private mutating func mix(_ word: UInt64) {
        var word = word
        for _ in 0..<8 {
            mixByte(UInt8(truncatingIfNeeded: word))
            word >>= 8
        }
    }

    private mutating func mixByte(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
}
