import Foundation

/// Encodes `Encodable` values to JSON, byte-for-byte as Foundation's `JSONEncoder` with
/// `outputFormatting = [.sortedKeys]` does, writing bytes directly instead of building a value tree.
/// Values it does not handle itself (floating-point numbers, `Data`, `Date`, `URL`, `Decimal`,
/// `superEncoder`, interleaved container writes, keys needing escapes or outside ASCII) and every
/// error are retried with Foundation, so results and errors are always Foundation's.
/// Not thread-safe: it reuses its buffers from one call to the next (use one per thread).
package final class FastJSONEncoder {
    /// Foundation's encoder, for what the fast path does not do.
    private let fallback: JSONEncoder
    /// The state of the last encoding, reused while no encoding runs (nil while one does).
    private var spare: JSONEncodingState? = JSONEncodingState()

    /// An encoder producing Foundation's `.sortedKeys` output.
    package init() {
        fallback = JSONEncoder()
        fallback.outputFormatting = [.sortedKeys]
    }

    /// The JSON of `value`; throws Foundation's error if Foundation's encoder would throw.
    package func encode<T: Encodable>(_ value: T) throws -> Data {
        if let data = try? encodeWithoutFallback(value) { return data }
        return try fallback.encode(value)
    }

    /// The fast path only: throws `UnsupportedJSON` (or the value's own error) where Foundation is needed.
    func encodeWithoutFallback<T: Encodable>(_ value: T) throws -> Data {
        let state = spare ?? JSONEncodingState()
        spare = nil
        defer {
            // Keep the buffers for the next call unless a large value grew them.
            if state.bytes.capacity <= 1 << 16 {
                state.reset()
                spare = state
            }
        }
        try state.encodeTopLevel(value)
        return state.bytes.withUnsafeBufferPointer { Data(buffer: $0) }
    }
}
