import Foundation

/// Finds the JSON Schema of a `Decodable` type by decoding it from nothing: a `Decoder` that
/// answers every request with a placeholder (`""`, `0`, `false`, one array element, a present
/// optional) and records what was asked for, where. Synthesized `Codable` asks for every stored
/// property with its type, so the record is the type's JSON shape. An enum with associated values
/// asks which key is present instead; `forcing` names the case to probe (`ScreenContract` takes the
/// names from the module's examples). Recursion stops at `SchemaProbe.maximumDepth` (optionals
/// absent, arrays empty there).
public enum SchemaProbe {
    /// How deep a probe descends before it stops following optionals and arrays.
    public static let maximumDepth = 24

    /// What probing `type` found: its schema, and whether it is keyed by its cases (an enum whose
    /// cases must be named to be probed). `failure` says where a type refused the placeholder values
    /// (that part of the schema is `.any`).
    public struct Result: Sendable {
        /// What the type decodes from.
        public var schema: JSONSchema
        /// Whether its top level asked which keys are present (a dictionary or an enum).
        public var asksForKeys: Bool
        /// The error the type threw at a placeholder, if it did.
        public var failure: String?
    }

    /// Probes `type`, answering its top-level request for keys with `forcing` (an enum case name).
    public static func probe<T: Decodable>(_ type: T.Type, forcing key: String? = nil) -> Result {
        let root = ProbeNode()
        var failure: String?
        do {
            _ = try T(from: ProbeDecoder(node: root, depth: 0, codingPath: [], forcedKey: key))
        } catch {
            failure = "\(error)"
        }
        return Result(schema: root.schema, asksForKeys: root.askedForKeys, failure: failure)
    }
}

/// What a probe learned about one value.
final class ProbeNode {
    enum Shape { case unknown, string, integer, number, boolean, keyed, array(ProbeNode), values([JSONValue]) }
    var shape = Shape.unknown
    var nullable = false
    /// Keyed: the properties asked for, in order, and whether each may be absent.
    var properties: [(key: String, node: ProbeNode, optional: Bool)] = []
    /// Keyed: the container asked for its keys (a dictionary, or an enum's cases).
    var askedForKeys = false
    /// Keyed: answered with a case name, so the object holds exactly that key.
    var forced = false
    /// Keyed: the values of a dictionary (probed under one made-up key).
    var dictionaryValues: ProbeNode?

    func property(_ key: String) -> ProbeNode {
        if let existing = properties.first(where: { $0.key == key }) { return existing.node }
        let node = ProbeNode()
        properties.append((key, node, false))
        return node
    }

    func markOptional(_ key: String) {
        _ = property(key)
        if let index = properties.firstIndex(where: { $0.key == key }) {
            properties[index].optional = true
            properties[index].node.nullable = true  // decodeIfPresent takes null as absent
        }
    }

    var schema: JSONSchema {
        let base: JSONSchema
        switch shape {
        case .unknown: base = .any
        case .string: base = .string
        case .integer: base = .integer
        case .number: base = .number
        case .boolean: base = .boolean
        case .values(let values): base = .oneOfValues(values)
        case .array(let items): base = .array(items: items.schema)
        case .keyed:
            if let dictionaryValues {
                base = .dictionary(values: dictionaryValues.schema)
            } else {
                base = .object(
                    properties: Dictionary(uniqueKeysWithValues: properties.map { ($0.key, $0.node.schema) }),
                    // Open even for an enum's case (`forced`): keys beside the case are ignored, and the
                    // contract's `oneOf` of the cases keeps a value to exactly one of them (docs/protocol.md §14).
                    required: Set(properties.filter { !$0.optional }.map(\.key)), closed: false)
            }
        }
        return nullable ? .nullable(base) : base
    }
}

/// A coding key made from a string, for paths.
struct ProbeKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) { self.stringValue = "\(intValue)"; self.intValue = intValue }
}

/// The key a dictionary's values are probed under.
private let dictionaryProbeKey = "key"

/// Placeholders for the values the probe hands out, and what each records.
private func placeholder<T: Decodable>(_ type: T.Type, node: ProbeNode, depth: Int, codingPath: [CodingKey]) throws -> T {
    if let (shape, value) = leafPlaceholder(type) {
        node.shape = shape
        return try cast(value, to: type, codingPath: codingPath)
    }
    if let iterable = type as? any CaseIterable.Type, let first = firstCase(iterable, recording: node) {
        return try cast(first, to: type, codingPath: codingPath)
    }
    return try T(from: ProbeDecoder(node: node, depth: depth, codingPath: codingPath, forcedKey: nil))
}

/// The placeholder of a type the probe answers itself (strings, numbers, booleans, URLs, UUIDs) and
/// what it records; nil for every other type, which decodes itself from the probe.
private func leafPlaceholder(_ type: Any.Type) -> (shape: ProbeNode.Shape, value: Any)? {
    switch type {
    case is String.Type: (.string, "")
    case is Bool.Type: (.boolean, false)
    case is Double.Type: (.number, 0.0)
    case is Float.Type: (.number, Float(0))
    case is URL.Type: (.string, URL(string: "https://example.invalid")!)
    case is UUID.Type: (.string, UUID())
    case let integer as any FixedWidthInteger.Type: (.integer, integer.init(0))
    default: nil
    }
}

/// `value` as the `T` it was made for; a placeholder of another type is the probe's bug, reported
/// (as the type's `failure`) instead of trapping.
private func cast<T>(_ value: Any, to type: T.Type, codingPath: [CodingKey]) throws -> T {
    guard let typed = value as? T else {
        throw DecodingError.typeMismatch(type, DecodingError.Context(
            codingPath: codingPath,
            debugDescription: "SchemaProbe's placeholder \(value) of type \(Swift.type(of: value)) is not a \(T.self)"))
    }
    return typed
}

/// The first case of a raw-value enum, recording every raw value.
private func firstCase<C: CaseIterable>(_ type: C.Type, recording node: ProbeNode) -> Any? {
    let cases = Array(type.allCases)
    let values: [JSONValue] = cases.compactMap { value in
        switch (value as? any RawRepresentable)?.rawValue {
        case let raw as String: .string(raw)
        case let raw as Int: .integer(raw)
        default: nil
        }
    }
    guard let first = cases.first, values.count == cases.count else { return nil }
    node.shape = .values(values)
    return first
}

struct ProbeDecoder: Decoder {
    let node: ProbeNode
    let depth: Int
    let codingPath: [CodingKey]
    let forcedKey: String?
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        node.shape = .keyed
        return KeyedDecodingContainer(KeyedProbe<Key>(node: node, depth: depth, codingPath: codingPath, forcedKey: forcedKey))
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        let items = ProbeNode()
        node.shape = .array(items)
        return UnkeyedProbe(items: items, depth: depth, codingPath: codingPath)
    }

    func singleValueContainer() throws -> SingleValueDecodingContainer {
        SingleValueProbe(node: node, depth: depth, codingPath: codingPath)
    }
}

struct KeyedProbe<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let node: ProbeNode
    let depth: Int
    let codingPath: [CodingKey]
    let forcedKey: String?

    var allKeys: [Key] {
        node.askedForKeys = true
        if let forcedKey, let key = Key(stringValue: forcedKey) {
            node.forced = true
            return [key]
        }
        guard depth < SchemaProbe.maximumDepth, let key = Key(stringValue: dictionaryProbeKey) else { return [] }
        node.dictionaryValues = node.property(dictionaryProbeKey)
        return [key]
    }

    func contains(_ key: Key) -> Bool { true }

    func decodeNil(forKey key: Key) throws -> Bool {
        node.markOptional(key.stringValue)
        return depth >= SchemaProbe.maximumDepth
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decode(type, key) }

    private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try placeholder(type, node: node.property(key.stringValue), depth: depth + 1, codingPath: codingPath + [key])
    }

    // The primitive requirements, each answered like any other type.
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type as Bool.Type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type as String.Type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type as Double.Type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type as Float.Type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type as Int.Type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type as Int8.Type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type as Int16.Type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type as Int32.Type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type as Int64.Type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type as UInt.Type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type as UInt8.Type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type as UInt16.Type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type as UInt32.Type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type as UInt64.Type, key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ProbeDecoder(node: node.property(key.stringValue), depth: depth + 1, codingPath: codingPath + [key], forcedKey: nil)
            .container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer {
        try ProbeDecoder(node: node.property(key.stringValue), depth: depth + 1, codingPath: codingPath + [key], forcedKey: nil)
            .unkeyedContainer()
    }

    func superDecoder() throws -> Decoder {
        ProbeDecoder(node: node.property("super"), depth: depth + 1, codingPath: codingPath + [ProbeKey(stringValue: "super")], forcedKey: nil)
    }

    func superDecoder(forKey key: Key) throws -> Decoder {
        ProbeDecoder(node: node.property(key.stringValue), depth: depth + 1, codingPath: codingPath + [key], forcedKey: nil)
    }
}

struct UnkeyedProbe: UnkeyedDecodingContainer {
    let items: ProbeNode
    let depth: Int
    let codingPath: [CodingKey]
    var currentIndex = 0
    var count: Int? { depth < SchemaProbe.maximumDepth ? 1 : 0 }
    var isAtEnd: Bool { currentIndex >= (count ?? 0) }

    mutating func decodeNil() throws -> Bool {
        items.nullable = true
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeNext(type) }

    private mutating func decodeNext<T: Decodable>(_ type: T.Type) throws -> T {
        defer { currentIndex += 1 }
        return try placeholder(type, node: items, depth: depth + 1, codingPath: codingPath + [ProbeKey(intValue: currentIndex)])
    }

    // The primitive requirements, each answered like any other type.
    mutating func decode(_ type: Bool.Type) throws -> Bool { try decodeNext(type) }
    mutating func decode(_ type: String.Type) throws -> String { try decodeNext(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try decodeNext(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try decodeNext(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try decodeNext(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeNext(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeNext(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeNext(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeNext(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeNext(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeNext(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeNext(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeNext(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeNext(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        defer { currentIndex += 1 }
        return try ProbeDecoder(node: items, depth: depth + 1, codingPath: codingPath, forcedKey: nil).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> UnkeyedDecodingContainer {
        defer { currentIndex += 1 }
        return try ProbeDecoder(node: items, depth: depth + 1, codingPath: codingPath, forcedKey: nil).unkeyedContainer()
    }

    mutating func superDecoder() throws -> Decoder {
        defer { currentIndex += 1 }
        return ProbeDecoder(node: items, depth: depth + 1, codingPath: codingPath, forcedKey: nil)
    }
}

struct SingleValueProbe: SingleValueDecodingContainer {
    let node: ProbeNode
    let depth: Int
    let codingPath: [CodingKey]

    func decodeNil() -> Bool {
        node.nullable = true
        return depth >= SchemaProbe.maximumDepth
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }

    private func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        try placeholder(type, node: node, depth: depth, codingPath: codingPath)
    }

    // The primitive requirements, each answered like any other type.
    func decode(_ type: Bool.Type) throws -> Bool { try decodeValue(type) }
    func decode(_ type: String.Type) throws -> String { try decodeValue(type) }
    func decode(_ type: Double.Type) throws -> Double { try decodeValue(type) }
    func decode(_ type: Float.Type) throws -> Float { try decodeValue(type) }
    func decode(_ type: Int.Type) throws -> Int { try decodeValue(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decodeValue(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decodeValue(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decodeValue(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decodeValue(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decodeValue(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeValue(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeValue(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeValue(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeValue(type) }
}
