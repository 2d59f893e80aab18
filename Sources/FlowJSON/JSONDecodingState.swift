import Foundation

/// The decoder behind `FastJSONDecoder`: the document's bytes and tokens, and the token being decoded
/// now. It is also its own single-value container. Anything it does not do itself (floating-point
/// numbers, Foundation's special types, integers written with a fraction or exponent, a type mismatch
/// or missing key) throws `UnsupportedJSON`, and the caller retries with Foundation.
final class JSONDecodingState: Decoder, SingleValueDecodingContainer {
    /// The mutable state, behind a pointer: stored properties of a class pay a dynamic exclusivity
    /// check on every access; memory behind a pointer does not. Only this object touches it, on one
    /// thread.
    struct Storage {
        /// The document (a copy, reused between documents).
        var bytes: [UInt8] = []
        var tokens: [JSONToken] = []
        /// The token of the value being decoded now.
        var current = 0
        var path: [any CodingKey] = []
        /// Set where a non-throwing requirement met something unusual; checked at the end.
        var failed = false
        /// Key indexes of large objects (by object token), built on their first look-up.
        var keyIndexes: [Int: [String: Int]] = [:]
    }

    private let storage: UnsafeMutablePointer<Storage>

    var bytes: [UInt8] {
        _read { yield storage.pointee.bytes }
        _modify { yield &storage.pointee.bytes }
    }
    var tokens: [JSONToken] {
        _read { yield storage.pointee.tokens }
        _modify { yield &storage.pointee.tokens }
    }
    var current: Int {
        _read { yield storage.pointee.current }
        _modify { yield &storage.pointee.current }
    }
    var path: [any CodingKey] {
        _read { yield storage.pointee.path }
        _modify { yield &storage.pointee.path }
    }
    var failed: Bool {
        _read { yield storage.pointee.failed }
        _modify { yield &storage.pointee.failed }
    }

    var keyIndexes: [Int: [String: Int]] {
        _read { yield storage.pointee.keyIndexes }
        _modify { yield &storage.pointee.keyIndexes }
    }

    var codingPath: [any CodingKey] { path }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// An empty state; `load` gives it a document.
    init() {
        storage = .allocate(capacity: 1)
        storage.initialize(to: Storage())
    }

    /// A state over another state's document (for `superDecoder`).
    convenience init(bytes: [UInt8], tokens: [JSONToken], current: Int, path: [any CodingKey]) {
        self.init()
        storage.pointee = Storage(bytes: bytes, tokens: tokens, current: current, path: path)
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// Copies and tokenizes `data` (reusing the buffers of the previous document).
    func load(_ data: Data) throws {
        storage.pointee.current = 0
        storage.pointee.failed = false
        storage.pointee.path.removeAll(keepingCapacity: true)
        if !storage.pointee.keyIndexes.isEmpty { storage.pointee.keyIndexes = [:] }
        storage.pointee.bytes.removeAll(keepingCapacity: true)
        data.withUnsafeBytes { storage.pointee.bytes.append(contentsOf: $0.assumingMemoryBound(to: UInt8.self)) }
        try storage.pointee.bytes.withUnsafeBufferPointer { buffer in
            var tokenizer = JSONTokenizer(buffer)
            // Lend the token buffer to the tokenizer (uniquely referenced, so it is reused) and take it back.
            swap(&tokenizer.tokens, &storage.pointee.tokens)
            defer { swap(&tokenizer.tokens, &storage.pointee.tokens) }
            tokenizer.tokens.removeAll(keepingCapacity: true)
            try tokenizer.run()
        }
    }

    /// Records that the fast path gave up (so the result is discarded even if the caller swallows
    /// the error with `try?`) and returns the error to throw.
    func fail(_ reason: StaticString) -> UnsupportedJSON {
        failed = true
        return UnsupportedJSON(reason)
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try keyedContainer(at: current, parentPath: path, lastKey: nil)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try unkeyedContainer(at: current, parentPath: path, lastKey: nil)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func keyedContainer<Key: CodingKey>(at index: Int, parentPath: [any CodingKey], lastKey: (any CodingKey)?) throws -> KeyedDecodingContainer<Key> {
        guard tokens[index].kind == .object else { throw fail("not an object") }
        return KeyedDecodingContainer(JSONKeyedDecodingContainer<Key>(state: self, object: index, parentPath: parentPath, lastKey: lastKey))
    }

    func unkeyedContainer(at index: Int, parentPath: [any CodingKey], lastKey: (any CodingKey)?) throws -> JSONUnkeyedDecodingContainer {
        guard tokens[index].kind == .array else { throw fail("not an array") }
        return JSONUnkeyedDecodingContainer(state: self, array: index, parentPath: parentPath, lastKey: lastKey)
    }

    // MARK: Values

    /// Decodes any value at token `index`: strings, integers and Bools directly, the rest with its
    /// `init(from:)` (with `key` added to the coding path).
    @inline(__always)
    func decodeAny<T: Decodable>(_ type: T.Type, at index: Int, key: (any CodingKey)?) throws -> T {
        if T.self == String.self {
            var value = try string(at: index)
            return withUnsafePointer(to: &value) { UnsafeRawPointer($0).load(as: T.self) }
        } else if T.self == Int.self {
            var value: Int = try integer(at: index)
            return withUnsafePointer(to: &value) { UnsafeRawPointer($0).load(as: T.self) }
        } else if T.self == Bool.self {
            var value = try bool(at: index)
            return withUnsafePointer(to: &value) { UnsafeRawPointer($0).load(as: T.self) }
        }
        if T.self == [String].self {
            var value = try array(at: index) { try string(at: $0) }
            return withUnsafePointer(to: &value) { UnsafeRawPointer($0).load(as: T.self) }
        } else if T.self == [Int].self {
            var value: [Int] = try array(at: index) { try integer(at: $0) }
            return withUnsafePointer(to: &value) { UnsafeRawPointer($0).load(as: T.self) }
        }
        if T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self {
            throw fail("Foundation special type")
        }
        let saved = current
        current = index
        if let key { path.append(key) }
        defer {
            current = saved
            if key != nil { path.removeLast() }
        }
        return try T(from: self)
    }

    /// An array of primitives decoded without a container (what `Array.init(from:)` would do).
    @inline(__always)
    func array<E>(at index: Int, _ element: (Int) throws -> E) throws -> [E] {
        let token = tokens[index]
        guard token.kind == .array else { throw fail("not an array") }
        var result: [E] = []
        result.reserveCapacity(Int(token.count))
        var i = index + 1
        for _ in 0..<token.count {
            result.append(try element(i))
            i = Int(tokens[i].next)
        }
        return result
    }

    /// The value token of `key` in a large object, through a dictionary built once per object (the
    /// first of duplicate keys wins, as with Foundation). Nil if absent.
    func lookUp(_ key: String, inObject object: Int) -> Int? {
        if let index = keyIndexes[object] { return index[key] }
        var index: [String: Int] = [:]
        let count = Int(tokens[object].count)
        index.reserveCapacity(count)
        var i = object + 1
        for _ in 0..<count {
            if let name = try? string(at: i), index[name] == nil { index[name] = i + 1 }
            i = Int(tokens[i + 1].next)
        }
        keyIndexes[object] = index
        return index[key]
    }

    func bool(at index: Int) throws -> Bool {
        switch tokens[index].kind {
        case .trueValue: return true
        case .falseValue: return false
        default: throw fail("not a Bool")
        }
    }

    /// A plain JSON integer as `I`; anything else (fraction, exponent, out of range) is Foundation's.
    func integer<I: FixedWidthInteger>(at index: Int) throws -> I {
        let token = tokens[index]
        guard token.kind == .number, token.plain else { throw fail("not a plain integer") }
        var i = Int(token.start)
        let end = Int(token.end)
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard end - i <= 20 else { throw fail("integer too long") }
        var magnitude: UInt64 = 0
        while i < end {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(bytes[i] &- UInt8(ascii: "0")))
            guard !o1 && !o2 else { throw fail("integer overflow") }
            magnitude = sum
            i += 1
        }
        if negative && magnitude != 0 {
            guard I.isSigned, magnitude <= UInt64(1) << 63 else { throw fail("negative integer") }
            let value = magnitude == UInt64(1) << 63 ? Int64.min : -Int64(magnitude)
            guard let result = I(exactly: value) else { throw fail("integer out of range") }
            return result
        }
        guard let result = I(exactly: magnitude) else { throw fail("integer out of range") }
        return result
    }

    func string(at index: Int) throws -> String {
        let token = tokens[index]
        guard token.kind == .string else { throw fail("not a string") }
        return bytes.withUnsafeBufferPointer { all in
            let raw = UnsafeBufferPointer(rebasing: all[Int(token.start)..<Int(token.end)])
            guard !token.plain, raw.contains(UInt8(ascii: "\\")) else {
                // The tokenizer validated UTF-8 already.
                return String(decoding: raw, as: UTF8.self)
            }
            return Self.unescape(raw)
        }
    }

    /// The string of an escaped JSON string body (escapes were validated by the tokenizer).
    static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        while i < raw.count {
            let byte = raw[i]
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                i += 1
                continue
            }
            let kind = raw[i + 1]
            i += 2
            switch kind {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = (try? JSONTokenizer.hex4(raw, i)) ?? 0xFFFD
                i += 4
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    let low = (try? JSONTokenizer.hex4(raw, i + 2)) ?? 0xDC00
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}") { out.append($0) }
            default: out.append(kind)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: SingleValueDecodingContainer

    func decodeNil() -> Bool { tokens[current].kind == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try bool(at: current) }
    func decode(_ type: String.Type) throws -> String { try string(at: current) }
    func decode(_ type: Double.Type) throws -> Double { throw fail("Double") }
    func decode(_ type: Float.Type) throws -> Float { throw fail("Float") }
    @available(macOS 15.0, *)
    func decode(_ type: Int128.Type) throws -> Int128 { throw fail("Int128") }
    @available(macOS 15.0, *)
    func decode(_ type: UInt128.Type) throws -> UInt128 { throw fail("UInt128") }
    func decode(_ type: Int.Type) throws -> Int { try integer(at: current) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(at: current) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(at: current) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(at: current) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(at: current) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(at: current) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(at: current) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(at: current) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(at: current) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(at: current) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeAny(type, at: current, key: nil) }
}
