import Foundation

/// How one side of a screen module (its `State` or its `Output`) is written on the wire: JSON through
/// the runtime's `PayloadCodec`, or the type's own binary form (`BinaryPayload`). A module gets the
/// right one without saying anything (`ScreenModule.stateCoder`, `outputCoder`).
public struct PayloadCoder<Value: Codable> {
    /// The content type of the payloads, e.g. `application/json` (built when asked: the coders of
    /// every encode and decode are made per call, and most never need it).
    public var contentType: String { contentTypeOf() }
    /// Whether payloads are JSON (then people's JSON is the payload itself).
    public let isJSON: Bool
    private let contentTypeOf: () -> String
    private let encodeValue: (Value, any PayloadCodec) throws -> Data
    private let decodeValue: (Data, any PayloadCodec) throws -> Value
    private let toJSON: (Data, any PayloadCodec) throws -> Data
    private let fromJSON: (Data, any PayloadCodec) throws -> Data

    /// The payload of `value`.
    public func encode(_ value: Value, with codec: any PayloadCodec) throws -> Data { try encodeValue(value, codec) }
    /// The value of a payload.
    public func decode(_ payload: Data, with codec: any PayloadCodec) throws -> Value { try decodeValue(payload, codec) }
    /// The JSON people read for a payload (the payload itself for JSON).
    public func json(fromPayload payload: Data, with codec: any PayloadCodec) throws -> Data { try toJSON(payload, codec) }
    /// The payload of JSON a person wrote (the JSON itself, checked, for JSON).
    public func payload(fromJSON json: Data, with codec: any PayloadCodec) throws -> Data { try fromJSON(json, codec) }

    /// JSON through the runtime's codec (the default).
    public static var json: PayloadCoder<Value> {
        PayloadCoder(
            isJSON: true, contentTypeOf: { "application/json" },
            encodeValue: { try $1.encode($0) }, decodeValue: { try $1.decode(Value.self, from: $0) },
            toJSON: { payload, _ in payload },
            fromJSON: { json, codec in
                _ = try codec.decode(Value.self, from: json)
                return json
            })
    }
}

extension PayloadCoder where Value: BinaryPayload {
    /// The value's own binary form.
    public static var binary: PayloadCoder<Value> {
        PayloadCoder(
            isJSON: false, contentTypeOf: { Value.payloadContentType },
            encodeValue: { value, _ in try value.binaryPayload() }, decodeValue: { payload, _ in try Value(binaryPayload: payload) },
            toJSON: { try Value.json(fromPayload: $0, with: $1) }, fromJSON: { try Value.payload(fromJSON: $0, with: $1) })
    }
}
