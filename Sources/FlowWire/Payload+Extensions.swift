import Foundation

extension Flowd_V1_Payload {
    /// A JSON payload holding `data` (already encoded JSON).
    public static func json(_ data: Data) -> Self {
        var payload = Self()
        payload.contentType = WireProtocol.jsonContentType
        payload.data = data
        return payload
    }

    /// A JSON payload holding `value` encoded with `JSONEncoder` (sorted keys, so equal values give equal bytes).
    public static func json(encoding value: some Encodable) throws -> Self {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return .json(try encoder.encode(value))
    }

    /// True if the content type is JSON ("application/json", optionally with parameters, or empty).
    public var isJSON: Bool {
        contentType.isEmpty
            || contentType == WireProtocol.jsonContentType
            || contentType.hasPrefix(WireProtocol.jsonContentType + ";")
    }

    /// Decodes the JSON data as `type`; throws `DecodingError` if it does not match.
    public func decodeJSON<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(type, from: data)
    }
}
