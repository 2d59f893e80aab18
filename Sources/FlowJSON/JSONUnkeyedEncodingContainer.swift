/// An unkeyed container of `JSONEncodingState`: writes array elements into its frame.
struct JSONUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let state: JSONEncodingState
    /// Its frame's id (-1: unusable, every write throws).
    let frame: Int
    /// The coding path is built only when asked for (most decoding never asks).
    let parentPath: [any CodingKey]
    let lastKey: (any CodingKey)?
    var codingPath: [any CodingKey] { lastKey.map { parentPath + [$0] } ?? parentPath }

    var count: Int {
        state.frames.last { $0.id == frame }?.count ?? 0
    }

    mutating func encodeNil() throws {
        _ = try state.beginElement(frame)
        state.writeNull()
    }

    mutating func encode(_ value: Bool) throws {
        _ = try state.beginElement(frame)
        state.writeBool(value)
    }

    mutating func encode(_ value: String) throws {
        _ = try state.beginElement(frame)
        state.writeString(value)
    }

    mutating func encode(_ value: Double) throws { throw state.fail("Double") }
    mutating func encode(_ value: Float) throws { throw state.fail("Float") }
    @available(macOS 15.0, *)
    mutating func encode(_ value: Int128) throws { throw state.fail("Int128") }
    @available(macOS 15.0, *)
    mutating func encode(_ value: UInt128) throws { throw state.fail("UInt128") }

    mutating func encode(_ value: Int) throws { try integer(value) }
    mutating func encode(_ value: Int8) throws { try integer(value) }
    mutating func encode(_ value: Int16) throws { try integer(value) }
    mutating func encode(_ value: Int32) throws { try integer(value) }
    mutating func encode(_ value: Int64) throws { try integer(value) }
    mutating func encode(_ value: UInt) throws { try integer(value) }
    mutating func encode(_ value: UInt8) throws { try integer(value) }
    mutating func encode(_ value: UInt16) throws { try integer(value) }
    mutating func encode(_ value: UInt32) throws { try integer(value) }
    mutating func encode(_ value: UInt64) throws { try integer(value) }

    @inline(__always)
    private func integer<I: FixedWidthInteger>(_ value: I) throws {
        _ = try state.beginElement(frame)
        state.writeInteger(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let index = try state.beginElement(frame)
        try state.encodeAny(value, key: JSONIndexKey(index: index))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let index = nested(keyed: true)
        return KeyedEncodingContainer(JSONKeyedEncodingContainer<NestedKey>(state: state, frame: index.frame, parentPath: codingPath, lastKey: JSONIndexKey(index: index.element)))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let index = nested(keyed: false)
        return JSONUnkeyedEncodingContainer(state: state, frame: index.frame, parentPath: codingPath, lastKey: JSONIndexKey(index: index.element))
    }

    /// Starts an element and opens the nested frame; frame -1 if this container is closed.
    private func nested(keyed: Bool) -> (frame: Int, element: Int) {
        do {
            let element = try state.beginElement(frame)
            return (state.open(keyed: keyed), element)
        } catch {
            state.failed = true
            return (-1, 0)
        }
    }

    mutating func superEncoder() -> any Encoder {
        state.failed = true
        return state
    }
}
