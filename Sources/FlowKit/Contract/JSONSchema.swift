/// The JSON Schema of a `Codable` type, as much of it as flowd's contracts need: the types of
/// JSON, objects with required and optional properties, arrays, dictionaries, fixed values and
/// alternatives. Printed with `json` (JSON Schema 2020-12 keywords); `validate` checks a value.
public indirect enum JSONSchema: Hashable, Sendable {
    /// Anything (what a probe could not see into).
    case any
    /// A string.
    case string
    /// A number without a fraction.
    case integer
    /// Any number.
    case number
    /// `true` or `false`.
    case boolean
    /// `schema`, or `null`.
    case nullable(JSONSchema)
    /// An array of `items`.
    case array(items: JSONSchema)
    /// An object with these properties (`required` ones must be present); others are ignored
    /// unless `closed`.
    case object(properties: [String: JSONSchema], required: Set<String>, closed: Bool)
    /// An object with any keys, each value a `values`.
    case dictionary(values: JSONSchema)
    /// One of these values (a `String` or `Int` raw-value enum).
    case oneOfValues([JSONValue])
    /// Exactly one of these schemas (an enum's cases).
    case oneOf([JSONSchema])

    /// The schema as JSON.
    public var json: JSONValue {
        switch self {
        case .any: return .object([:])
        case .string: return .object(["type": .string("string")])
        case .integer: return .object(["type": .string("integer")])
        case .number: return .object(["type": .string("number")])
        case .boolean: return .object(["type": .string("boolean")])
        case .nullable(let schema):
            let inner = schema.json
            if case .object(var fields) = inner, case .string(let type)? = fields["type"], fields.count == 1 {
                fields["type"] = .array([.string(type), .string("null")])
                return .object(fields)
            }
            return .object(["anyOf": .array([inner, .object(["type": .string("null")])])])
        case .array(let items): return .object(["type": .string("array"), "items": items.json])
        case .object(let properties, let required, let closed):
            var fields: [String: JSONValue] = [
                "type": .string("object"), "properties": .object(properties.mapValues(\.json)),
            ]
            if !required.isEmpty { fields["required"] = .array(required.sorted().map { .string($0) }) }
            if closed { fields["additionalProperties"] = .bool(false) }
            return .object(fields)
        case .dictionary(let values): return .object(["type": .string("object"), "additionalProperties": values.json])
        case .oneOfValues(let values): return .object(["enum": .array(values)])
        case .oneOf(let schemas): return .object(["oneOf": .array(schemas.map(\.json))])
        }
    }

    /// Why `value` does not fit this schema: one line per mismatch, naming its path (`$.a.0.b`);
    /// empty when it fits.
    public func validate(_ value: JSONValue, at path: String = "$") -> [String] {
        func mismatch(_ expected: String) -> [String] { ["\(path): expected \(expected), got \(value.text)"] }
        switch (self, value) {
        case (.any, _), (.string, .string), (.integer, .integer), (.number, .integer), (.number, .number), (.boolean, .bool):
            return []
        case (.nullable, .null):
            return []
        case (.nullable(let schema), _):
            return schema.validate(value, at: path)
        case (.array(let items), .array(let elements)):
            return elements.enumerated().flatMap { items.validate($1, at: "\(path).\($0)") }
        case (.object(let properties, let required, let closed), .object(let fields)):
            var problems = required.subtracting(fields.keys).sorted().map { "\(path): missing required property \"\($0)\"" }
            for (key, field) in fields.sorted(by: { $0.key < $1.key }) {
                if let schema = properties[key] {
                    problems += schema.validate(field, at: "\(path).\(key)")
                } else if closed {
                    problems.append("\(path): property \"\(key)\" is not allowed")
                }
            }
            return problems
        case (.dictionary(let values), .object(let fields)):
            return fields.sorted(by: { $0.key < $1.key }).flatMap { values.validate($1, at: "\(path).\($0)") }
        case (.oneOfValues(let values), _):
            return values.contains(value) ? [] : mismatch("one of \(JSONValue.array(values).text)")
        case (.oneOf(let schemas), _):
            let fitting = schemas.filter { $0.validate(value, at: path).isEmpty }.count
            return fitting == 1 ? [] : mismatch("exactly one of \(schemas.count) alternatives (\(fitting) fit)")
        default:
            return mismatch(json.text)
        }
    }
}
