import Foundation

/// Decodes `Decodable` values from JSON like Foundation's `JSONDecoder`, through a flat token array
/// instead of Foundation's value tree. Inputs or types it does not handle itself (floating-point
/// numbers, `Data`, `Date`, `URL`, `Decimal`, integers written as `1.0` or `1e2`, duplicate keys,
/// anything malformed) and every error are retried with Foundation, so results and error messages are
/// always Foundation's; the fallback costs only on those paths.
/// Not thread-safe: it reuses its buffers from one call to the next (use one per thread).
package final class FastJSONDecoder {
    /// Foundation's decoder, for what the fast path does not do.
    private let fallback = JSONDecoder()
    /// The state of the last decoding, reused while no decoding runs (nil while one does).
    private var spare: JSONDecodingState? = JSONDecodingState()

    /// A decoder with Foundation's default options.
    package init() {}

    /// Decodes a `T` from `data`; throws Foundation's error if Foundation's decoder would throw.
    package func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        if let value = try? decodeWithoutFallback(type, from: data) { return value }
        return try fallback.decode(type, from: data)
    }

    /// The fast path only: throws `UnsupportedJSON` (or the type's own error) where Foundation is needed.
    func decodeWithoutFallback<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let state = spare ?? JSONDecodingState()
        spare = nil
        defer {
            // Keep the buffers for the next call unless a large document grew them.
            if state.bytes.capacity <= 1 << 16 { spare = state }
        }
        try state.load(data)
        let value = try state.decodeAny(type, at: 0, key: nil)
        if state.failed { throw UnsupportedJSON("unusual input") }
        return value
    }
}
