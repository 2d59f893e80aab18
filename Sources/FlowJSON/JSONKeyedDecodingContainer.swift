import Foundation

/// A keyed container of `JSONDecodingState` over one object token; finds a key by scanning the
/// object's entries (the first match wins, as with Foundation).
struct JSONKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let state: JSONDecodingState
    /// The object's token.
    let object: Int
    /// The coding path is built only when asked for (most decoding never asks).
    let parentPath: [any CodingKey]
    let lastKey: (any CodingKey)?
    var codingPath: [any CodingKey] { lastKey.map { parentPath + [$0] } ?? parentPath }

    var allKeys: [Key] {
        let count = Int(state.tokens[object].count)
        var keys: [Key] = []
        keys.reserveCapacity(count)
        var strings: Set<String> = []
        var i = object + 1
        for _ in 0..<count {
            guard let string = try? state.string(at: i) else { break }
            if count > 1 { strings.insert(string) }
            if let key = Key(stringValue: string) { keys.append(key) }
            i = Int(state.tokens[i + 1].next)
        }
        if count > 1 && strings.count != count { state.failed = true }
        return keys
    }

    /// The value token for `key`, or nil.
    func find(_ key: Key) -> Int? {
        let tokens = state.tokens
        let count = Int(tokens[object].count)
        guard count > 0 else { return nil }
        // Scanning is fastest for small objects; large ones (dictionaries) get an index.
        if count > 16 { return state.lookUp(key.stringValue, inObject: object) }
        var name = key.stringValue
        return name.withUTF8 { wanted -> Int? in
            let wantedASCII = wanted.allSatisfy { $0 < 0x80 }
            return state.bytes.withUnsafeBufferPointer { bytes -> Int? in
                var i = object + 1
                for _ in 0..<count {
                    let token = tokens[i]
                    if token.plain && wantedASCII {
                        let length = Int(token.end - token.start)
                        if length == wanted.count
                            && (length == 0 || memcmp(bytes.baseAddress! + Int(token.start), wanted.baseAddress!, length) == 0) {
                            return i + 1
                        }
                    } else if let string = try? state.string(at: i), string == key.stringValue {
                        return i + 1
                    }
                    i = Int(tokens[i + 1].next)
                }
                return nil
            }
        }
    }

    /// The value token for `key`; a missing key is Foundation's error to report.
    @inline(__always)
    private func value(_ key: Key) throws -> Int {
        guard let index = find(key) else { throw state.fail("missing key") }
        return index
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { state.tokens[try value(key)].kind == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try state.bool(at: value(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try state.string(at: value(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { throw state.fail("Double") }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw state.fail("Float") }
    @available(macOS 15.0, *)
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { throw state.fail("Int128") }
    @available(macOS 15.0, *)
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { throw state.fail("UInt128") }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try state.integer(at: value(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try state.integer(at: value(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try state.integer(at: value(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try state.integer(at: value(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try state.integer(at: value(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try state.integer(at: value(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try state.integer(at: value(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try state.integer(at: value(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try state.integer(at: value(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try state.integer(at: value(key)) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try state.decodeAny(type, at: value(key), key: key)
    }

    // One look-up instead of the protocol's default `contains`, `decodeNil` and `decode`.

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let index = find(key), state.tokens[index].kind != .null else { return nil }
        return try state.string(at: index)
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let index = find(key), state.tokens[index].kind != .null else { return nil }
        return try state.integer(at: index)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let index = find(key), state.tokens[index].kind != .null else { return nil }
        return try state.bool(at: index)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let index = find(key), state.tokens[index].kind != .null else { return nil }
        return try state.decodeAny(type, at: index, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try state.keyedContainer(at: value(key), parentPath: codingPath, lastKey: key)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try state.unkeyedContainer(at: value(key), parentPath: codingPath, lastKey: key)
    }

    func superDecoder() throws -> any Decoder {
        guard let key = Key(stringValue: "super"), let index = find(key) else { throw state.fail("missing super") }
        return JSONDecodingState(bytes: state.bytes, tokens: state.tokens, current: index, path: codingPath + [JSONSuperKey()])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONDecodingState(bytes: state.bytes, tokens: state.tokens, current: try value(key), path: codingPath + [key])
    }
}
