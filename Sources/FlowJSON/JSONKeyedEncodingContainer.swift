/// A keyed container of `JSONEncodingState`: writes `"key":value` entries into its frame.
struct JSONKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let state: JSONEncodingState
    /// Its frame's id (-1: unusable, every write throws).
    let frame: Int
    /// The coding path is built only when asked for (most decoding never asks).
    let parentPath: [any CodingKey]
    let lastKey: (any CodingKey)?
    var codingPath: [any CodingKey] { lastKey.map { parentPath + [$0] } ?? parentPath }

    mutating func encodeNil(forKey key: Key) throws {
        try state.beginEntry(frame, key: key.stringValue)
        state.writeNull()
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try state.beginEntry(frame, key: key.stringValue)
        state.writeBool(value)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        try state.beginEntry(frame, key: key.stringValue)
        state.writeString(value)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws { throw state.fail("Double") }
    mutating func encode(_ value: Float, forKey key: Key) throws { throw state.fail("Float") }
    @available(macOS 15.0, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws { throw state.fail("Int128") }
    @available(macOS 15.0, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws { throw state.fail("UInt128") }

    mutating func encode(_ value: Int, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }

    @inline(__always)
    private func integer<I: FixedWidthInteger>(_ value: I, _ key: Key) throws {
        try state.beginEntry(frame, key: key.stringValue)
        state.writeInteger(value)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try state.beginEntry(frame, key: key.stringValue)
        try state.encodeAny(value, key: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(JSONKeyedEncodingContainer<NestedKey>(state: state, frame: nested(key, keyed: true), parentPath: codingPath, lastKey: key))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        JSONUnkeyedEncodingContainer(state: state, frame: nested(key, keyed: false), parentPath: codingPath, lastKey: key)
    }

    /// Writes the key and opens the nested frame; -1 if this container is closed.
    private func nested(_ key: Key, keyed: Bool) -> Int {
        do {
            try state.beginEntry(frame, key: key.stringValue)
        } catch {
            state.failed = true
            return -1
        }
        return state.open(keyed: keyed)
    }

    mutating func superEncoder() -> any Encoder {
        state.failed = true
        return state
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        state.failed = true
        return state
    }
}
