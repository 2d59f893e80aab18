/// The single-value container of `JSONEncodingState`: writes the current level's one value.
struct JSONSingleValueEncodingContainer: SingleValueEncodingContainer {
    let state: JSONEncodingState
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws {
        try state.beginSingleValue()
        state.writeNull()
    }

    mutating func encode(_ value: Bool) throws {
        try state.beginSingleValue()
        state.writeBool(value)
    }

    mutating func encode(_ value: String) throws {
        try state.beginSingleValue()
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
        try state.beginSingleValue()
        state.writeInteger(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try state.beginSingleValue()
        try state.encodeLevel(value)
    }
}
