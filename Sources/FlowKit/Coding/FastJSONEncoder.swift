import Foundation

/// Encodes `Encodable` values to JSON, byte-for-byte as Foundation's `JSONEncoder` with
/// `outputFormatting = [.sortedKeys]` does, writing bytes directly instead of building a value tree.
/// Values it does not handle itself (floating-point numbers, `Data`, `Date`, `URL`, `Decimal`,
/// `superEncoder`, interleaved container writes, keys needing escapes or outside ASCII) and every
/// error are retried with Foundation, so results and errors are always Foundation's.
package final class FastJSONEncoder: Sendable {
    /// Foundation's encoder, for what the fast path does not do.
    private let fallback: JSONEncoder

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
        let state = JSONEncodingState()
        try state.encodeTopLevel(value)
        return state.bytes.withUnsafeBufferPointer { Data(buffer: $0) }
    }
}
