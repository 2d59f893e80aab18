import FlowKit
import Foundation

/// The fields a page's message may carry (docs/web.md, "Messages"); which ones a `type` needs is
/// checked by `TabRequest` and `InspectorRequest`, which turn it into a typed request.
package struct IncomingMessage: Decodable {
    var type: String
    var screen: UInt64?
    var flow: UInt64?
    var index: Int?
    var serial: UInt64?
    var text: String?
    var link: String?
    var phase: String?
    var animated: Bool?
    /// A range of the history (the inspector's timeline): the first and the last input.
    var from: Int?
    var to: Int?
    /// An output as JSON (the inspector's inject); kept as text, the daemon decodes it.
    var output: JSONText?

    /// Decodes one WebSocket text message, or says what is wrong with it.
    static func decode(_ text: String) throws(MessageError) -> IncomingMessage {
        do {
            return try JSONDecoder().decode(IncomingMessage.self, from: Data(text.utf8))
        } catch DecodingError.keyNotFound(let key, _) {
            throw MessageError("malformed message: no \"\(key.stringValue)\" field")
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            if field.isEmpty { throw MessageError("malformed message: not a JSON object") }
            throw MessageError("malformed message: field \"\(field)\" has the wrong type")
        } catch {
            throw MessageError("malformed message: \(Self.whatIsWrong(text))")
        }
    }

    /// Why the decoder refused `text` without saying where (Foundation's decoder calls a number a
    /// field's type cannot hold — 1e30, -1 for an id, 1.5 for an index — "not valid JSON"): that
    /// field, or not a JSON object.
    private static func whatIsWrong(_ text: String) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            return "not a JSON object"
        }
        let outOfRange = " is a number out of range"
        for field in ["screen", "flow", "serial"] {
            if let number = object[field] as? NSNumber, UInt64(exactly: number) == nil {
                return "field \"\(field)\"\(outOfRange) (an integer from 0 to \(UInt64.max))"
            }
        }
        for field in ["index", "from", "to"] {
            if let number = object[field] as? NSNumber, Int(exactly: number) == nil {
                return "field \"\(field)\"\(outOfRange) (an integer from \(Int.min) to \(Int.max))"
            }
        }
        return "not a JSON object"
    }

    /// The value of a field `type` needs, or the error that names it.
    func required<Value>(_ value: Value?, _ field: String) throws(MessageError) -> Value {
        guard let value else { throw MessageError("malformed message: \"\(type)\" needs a \"\(field)\" field") }
        return value
    }

    /// The navigation phase named by `phase`, a `NavigationPhase` raw value (default: immediate).
    func navigationPhase() throws(MessageError) -> NavigationPhase {
        guard let phase else { return .immediate }
        guard let known = NavigationPhase(rawValue: phase) else {
            let names = NavigationPhase.allCases.map(\.rawValue).joined(separator: ", ")
            throw MessageError("malformed message: phase \"\(phase)\" is not one of \(names)")
        }
        return known
    }
}

/// Any JSON value, kept as its text.
struct JSONText: Decodable, Equatable {
    var text: String

    init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode(AnyJSON.self)
        let data = try JSONSerialization.data(withJSONObject: value.object, options: [.fragmentsAllowed, .sortedKeys])
        text = String(decoding: data, as: UTF8.self)
    }
}

/// A JSON value decoded into Foundation objects, for `JSONText`.
private struct AnyJSON: Decodable {
    var object: Any

    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var items: [Any] = []
            while !array.isAtEnd { items.append(try array.decode(AnyJSON.self).object) }
            object = items
        } else if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
            var items: [String: Any] = [:]
            for key in keyed.allKeys { items[key.stringValue] = try keyed.decode(AnyJSON.self, forKey: key).object }
            object = items
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                object = NSNull()
            } else if let bool = try? single.decode(Bool.self) {
                object = bool
            } else if let integer = try? single.decode(Int.self) {
                object = integer
            } else if let number = try? single.decode(Double.self) {
                object = number
            } else {
                object = try single.decode(String.self)
            }
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
