import Foundation

/// A `State` or `Output` that crosses the wire in a binary form of its own instead of JSON: the
/// Swift face of a protobuf message (FlowProtobuf's `ProtobufPayload`), say. It stays `Codable`:
/// its contract (`flowd describe`) is probed from the Swift type. People read and write it as JSON
/// (`flowctl inject`, `flowctl watch --payloads`, recordings) through `json(fromPayload:with:)` and
/// `payload(fromJSON:with:)`.
public protocol BinaryPayload: Codable {
    /// The content type of the binary form, e.g. `application/protobuf; proto=flowd.demo.v1.CardState`.
    static var payloadContentType: String { get }
    /// The value a binary payload holds; throws if the bytes are not one.
    init(binaryPayload: Data) throws
    /// This value's binary payload.
    func binaryPayload() throws -> Data
    /// The JSON people see for a binary payload (by default the value's `Codable` JSON).
    static func json(fromPayload payload: Data, with codec: any PayloadCodec) throws -> Data
    /// The binary payload of the JSON a person wrote (by default read as the value's `Codable` JSON).
    static func payload(fromJSON json: Data, with codec: any PayloadCodec) throws -> Data
}

extension BinaryPayload {
    public static func json(fromPayload payload: Data, with codec: any PayloadCodec) throws -> Data {
        try codec.encode(Self(binaryPayload: payload))
    }

    public static func payload(fromJSON json: Data, with codec: any PayloadCodec) throws -> Data {
        try codec.decode(Self.self, from: json).binaryPayload()
    }
}
