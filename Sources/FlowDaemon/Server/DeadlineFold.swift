/// The earliest of the parts' deadlines, folded one by one (not from an array literal: this runs
/// once per loop iteration, and an array would be allocated each time).
enum DeadlineFold {
    /// Keeps in `next` the earlier of it and `deadline` (nil: none).
    @inline(__always)
    static func fold(_ deadline: UInt64?, into next: inout UInt64?) {
        guard let deadline else { return }
        if let current = next, current <= deadline { return }
        next = deadline
    }
}
