import FlowJSON
import Foundation

/// How screen states and outputs are turned into payload bytes and back. Injected into the runtime
/// (`FlowRuntime(codec:)`); JSON is the default so that a screen in any language can take part.
public protocol PayloadCodec: AnyObject {
    /// The payload content type, e.g. `application/json`.
    var contentType: String { get }
    /// The payload of `value`.
    func encode<T: Encodable>(_ value: T) throws -> Data
    /// The value of a payload.
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}

/// JSON payloads (`application/json`): Foundation's `.sortedKeys` bytes, written and read by the fast
/// coders of FlowJSON. Not thread-safe: one per runtime.
public final class JSONPayloadCodec: PayloadCodec {
    private let encoder = FastJSONEncoder()
    private let decoder = FastJSONDecoder()

    /// A JSON codec.
    public init() {}

    public var contentType: String { "application/json" }

    public func encode<T: Encodable>(_ value: T) throws -> Data { try encoder.encode(value) }

    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T { try decoder.decode(type, from: data) }
}
