/// Parses a JSON document (RFC 8259, UTF-8) into `JSONToken`s. Strict: anything unusual (a byte
/// order mark, invalid UTF-8, lone surrogates, nesting deeper than 256, documents over 1 GiB) throws
/// `UnsupportedJSON` so Foundation decides.
struct JSONTokenizer {
    private let bytes: UnsafeBufferPointer<UInt8>
    /// The tokens found so far.
    var tokens: [JSONToken] = []
    private var position = 0
    private var sawNonASCII = false

    /// A tokenizer over `bytes`; give it an empty `tokens` with capacity to reuse a buffer.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Tokenizes the whole document.
    mutating func run() throws {
        guard bytes.count < 1 << 30 else { throw UnsupportedJSON("document too large") }
        skipWhitespace()
        try value(depth: 0)
        skipWhitespace()
        guard position == bytes.count else { throw UnsupportedJSON("trailing bytes") }
        if sawNonASCII {
            var iterator = bytes.makeIterator()
            var utf8 = UTF8()
            loop: while true {
                switch utf8.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: break loop
                case .error: throw UnsupportedJSON("invalid UTF-8")
                }
            }
        }
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while position < bytes.count {
            let byte = bytes[position]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            position += 1
        }
    }

    private mutating func value(depth: Int) throws {
        guard position < bytes.count else { throw UnsupportedJSON("truncated") }
        switch bytes[position] {
        case UInt8(ascii: "{"): try object(depth: depth + 1)
        case UInt8(ascii: "["): try array(depth: depth + 1)
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true", .trueValue)
        case UInt8(ascii: "f"): try literal("false", .falseValue)
        case UInt8(ascii: "n"): try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw UnsupportedJSON("unexpected byte")
        }
    }

    private mutating func leaf(_ kind: JSONToken.Kind, plain: Bool, start: Int, end: Int) {
        tokens.append(JSONToken(kind: kind, plain: plain, count: 0, start: Int32(start), end: Int32(end), next: Int32(tokens.count + 1)))
    }

    private mutating func literal(_ text: StaticString, _ kind: JSONToken.Kind) throws {
        let length = text.utf8CodeUnitCount
        guard bytes.count - position >= length else { throw UnsupportedJSON("truncated literal") }
        for i in 0..<length where bytes[position + i] != text.utf8Start[i] { throw UnsupportedJSON("bad literal") }
        leaf(kind, plain: true, start: position, end: position + length)
        position += length
    }

    private mutating func object(depth: Int) throws {
        guard depth <= 256 else { throw UnsupportedJSON("too deep") }
        let index = tokens.count
        tokens.append(JSONToken(kind: .object, plain: true, count: 0, start: Int32(position), end: 0, next: 0))
        position += 1
        skipWhitespace()
        var count: Int32 = 0
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
        } else {
            while true {
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw UnsupportedJSON("expected a key") }
                try string()
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw UnsupportedJSON("expected a colon") }
                position += 1
                skipWhitespace()
                try value(depth: depth)
                count += 1
                skipWhitespace()
                guard position < bytes.count else { throw UnsupportedJSON("truncated object") }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    skipWhitespace()
                } else if bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    break
                } else {
                    throw UnsupportedJSON("expected a comma or }")
                }
            }
        }
        tokens[index].count = count
        tokens[index].end = Int32(position)
        tokens[index].next = Int32(tokens.count)
    }

    private mutating func array(depth: Int) throws {
        guard depth <= 256 else { throw UnsupportedJSON("too deep") }
        let index = tokens.count
        tokens.append(JSONToken(kind: .array, plain: true, count: 0, start: Int32(position), end: 0, next: 0))
        position += 1
        skipWhitespace()
        var count: Int32 = 0
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
        } else {
            while true {
                try value(depth: depth)
                count += 1
                skipWhitespace()
                guard position < bytes.count else { throw UnsupportedJSON("truncated array") }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    skipWhitespace()
                } else if bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    break
                } else {
                    throw UnsupportedJSON("expected a comma or ]")
                }
            }
        }
        tokens[index].count = count
        tokens[index].end = Int32(position)
        tokens[index].next = Int32(tokens.count)
    }

    private mutating func string() throws {
        position += 1
        let start = position
        var plain = true
        guard let base = bytes.baseAddress else { throw UnsupportedJSON("empty input") }
        while true {
            // The common bytes first, without bounds checks (the loop checks `position`).
            while position < bytes.count {
                let byte = base[position]
                guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else { break }
                position += 1
            }
            guard position < bytes.count else { throw UnsupportedJSON("truncated string") }
            let byte = base[position]
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 { throw UnsupportedJSON("control character in a string") }
            if byte >= 0x80 {
                plain = false
                sawNonASCII = true
                position += 1
            } else if byte == UInt8(ascii: "\\") {
                plain = false
                try escape()
            } else {
                position += 1
            }
        }
        leaf(.string, plain: plain, start: start, end: position)
        position += 1
    }

    /// Checks one escape sequence (at the backslash) and moves past it.
    private mutating func escape() throws {
        guard position + 1 < bytes.count else { throw UnsupportedJSON("truncated escape") }
        switch bytes[position + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 2
        case UInt8(ascii: "u"):
            let unit = try Self.hex4(bytes, position + 2)
            position += 6
            if unit >= 0xDC00 && unit <= 0xDFFF { throw UnsupportedJSON("lone low surrogate") }
            if unit >= 0xD800 && unit <= 0xDBFF {
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                    throw UnsupportedJSON("lone high surrogate")
                }
                let low = try Self.hex4(bytes, position + 2)
                guard low >= 0xDC00 && low <= 0xDFFF else { throw UnsupportedJSON("lone high surrogate") }
                position += 6
            }
        default:
            throw UnsupportedJSON("bad escape")
        }
    }

    /// The value of four hex digits at `at`.
    static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, _ at: Int) throws -> UInt32 {
        guard at + 4 <= bytes.count else { throw UnsupportedJSON("truncated \\u escape") }
        var value: UInt32 = 0
        for i in at..<(at + 4) {
            let byte = bytes[i]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw UnsupportedJSON("bad hex digit")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func number() throws {
        let start = position
        var plain = true
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else { throw UnsupportedJSON("bad number") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            plain = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw UnsupportedJSON("bad fraction") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            plain = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else { throw UnsupportedJSON("bad exponent") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        leaf(.number, plain: plain, start: start, end: position)
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }
}
