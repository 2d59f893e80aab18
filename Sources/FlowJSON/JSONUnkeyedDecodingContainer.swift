/// An unkeyed container of `JSONDecodingState` over one array token.
struct JSONUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let state: JSONDecodingState
    /// The array's token.
    let array: Int
    /// The coding path is built only when asked for (most decoding never asks).
    let parentPath: [any CodingKey]
    let lastKey: (any CodingKey)?
    var codingPath: [any CodingKey] { lastKey.map { parentPath + [$0] } ?? parentPath }
    let count: Int?
    private(set) var currentIndex = 0
    /// The token of the element at `currentIndex`.
    private var cursor: Int

    init(state: JSONDecodingState, array: Int, parentPath: [any CodingKey], lastKey: (any CodingKey)?) {
        self.state = state
        self.array = array
        self.parentPath = parentPath
        self.lastKey = lastKey
        count = Int(state.tokens[array].count)
        cursor = array + 1
    }

    var isAtEnd: Bool { currentIndex >= count ?? 0 }

    /// The next element's token; moves past it.
    @inline(__always)
    private mutating func next() throws -> Int {
        guard !isAtEnd else { throw state.fail("past the end of an array") }
        let index = cursor
        cursor = Int(state.tokens[index].next)
        currentIndex += 1
        return index
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw state.fail("past the end of an array") }
        guard state.tokens[cursor].kind == .null else { return false }
        _ = try next()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try state.bool(at: next()) }
    mutating func decode(_ type: String.Type) throws -> String { try state.string(at: next()) }
    mutating func decode(_ type: Double.Type) throws -> Double { throw state.fail("Double") }
    mutating func decode(_ type: Float.Type) throws -> Float { throw state.fail("Float") }
    @available(macOS 15.0, *)
    mutating func decode(_ type: Int128.Type) throws -> Int128 { throw state.fail("Int128") }
    @available(macOS 15.0, *)
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { throw state.fail("UInt128") }
    mutating func decode(_ type: Int.Type) throws -> Int { try state.integer(at: next()) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try state.integer(at: next()) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try state.integer(at: next()) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try state.integer(at: next()) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try state.integer(at: next()) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try state.integer(at: next()) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try state.integer(at: next()) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try state.integer(at: next()) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try state.integer(at: next()) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try state.integer(at: next()) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let index = currentIndex
        return try state.decodeAny(type, at: next(), key: JSONIndexKey(index: index))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let index = currentIndex
        return try state.keyedContainer(at: next(), parentPath: codingPath, lastKey: JSONIndexKey(index: index))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let index = currentIndex
        return try state.unkeyedContainer(at: next(), parentPath: codingPath, lastKey: JSONIndexKey(index: index))
    }

    mutating func superDecoder() throws -> any Decoder {
        let index = currentIndex
        return JSONDecodingState(bytes: state.bytes, tokens: state.tokens, current: try next(), path: codingPath + [JSONIndexKey(index: index)])
    }
}
