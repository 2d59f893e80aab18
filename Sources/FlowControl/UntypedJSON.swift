import FoundationEssentials

/// Any JSON value, read and printed as Foundation's `JSONSerialization` did for flowctl
/// (`jsonObject(with:options: [.fragmentsAllowed])`, then `data(withJSONObject:options:
/// [.sortedKeys, .withoutEscapingSlashes])`), without full Foundation: `JSONSerialization` lives in
/// libFoundation.a, which brings CoreFoundation and ICU's data into a static flowctl (docs/daemon.md).
///
/// What stays as it was, byte for byte:
/// - what is JSON: trailing commas accepted (`[1,]`), leading zeros, raw control characters, lone
///   surrogates and invalid UTF-8 refused; a UTF-8 byte order mark skipped, UTF-16 and UTF-32 read;
///   nesting up to 512; a number that is not finite as a `Double` (`1e400`) refused;
/// - numbers: an integer that fits `Int64` (negative) or `UInt64` prints as itself; more than 17
///   characters before the exponent, with an exponent from -128 to 127, goes through `Decimal`; any
///   other through `Double`, printed as Swift prints it without a trailing `.0` (`1.0` → `1`,
///   `1e2` → `100`, `0.1` → `0.1`, `-0.0` → `-0`);
/// - strings: `"` `\` and control characters escaped (`\b \f \n \r \t`, else `\u00XX` in lower
///   case), `/` and everything else as it is (UTF-8);
/// - keys sorted as `NSString.compare(_:options: [.numeric, .caseInsensitive, .forcedOrdering],
///   locale: system)` sorts them (`keyPrecedes`): ICU's root collation, numbers by value, case only
///   to break ties (lower first). Exact for keys of ASCII characters; where two keys first differ at
///   a character beyond ASCII, ICU's collation (`ä` next to `a`) is not reproduced: such keys sort by
///   code point after every ASCII letter.
public indirect enum UntypedJSON: Equatable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as it prints (`42`, `-0.5`, `100`).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([UntypedJSON])
    /// An object; its keys print sorted (`keyPrecedes`).
    case object([String: UntypedJSON])

    /// An integer.
    public static func integer(_ value: some BinaryInteger) -> UntypedJSON {
        .number(String(value))
    }

    /// Why a text is not JSON (or not a JSON value flowctl prints).
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        /// What is wrong, with the byte offset where it was seen.
        public let description: String
    }

    /// The JSON value of `bytes`; a bare string, number, `true`, `false` or `null` only when
    /// `fragmentsAllowed` (as JSONSerialization's reading option).
    public init(parsing bytes: some Collection<UInt8>, fragmentsAllowed: Bool = false) throws(ParseError) {
        var parser = Parser(bytes: try Self.utf8(Array(bytes)))
        let value = try parser.document()
        if !fragmentsAllowed {
            switch value {
            case .array, .object: break
            default: throw ParseError(description: "JSON text did not start with array or object and option to allow fragments not set")
            }
        }
        self = value
    }

    /// Compact JSON text, keys sorted (`keyPrecedes`), slashes not escaped.
    public var text: String {
        var out: [UInt8] = []
        write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let text): Self.write(string: text, to: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted(by: Self.keyPrecedes).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.write(string: key, to: &out)
                out.append(UInt8(ascii: ":"))
                members[key]!.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func write(string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x08: out.append(contentsOf: #"\b"#.utf8)
            case 0x0C: out.append(contentsOf: #"\f"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0x00...0x1F:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    // MARK: - Reading

    /// The document as UTF-8, as JSONSerialization detects its encoding: a byte order mark, else the
    /// pattern of zero bytes at its start.
    private static func utf8(_ bytes: [UInt8]) throws(ParseError) -> [UInt8] {
        let encoding: String.Encoding
        var skip = 0
        if bytes.count >= 4, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return Array(bytes.dropFirst(3)) }
        if bytes.count >= 4, bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF]) {
            (encoding, skip) = (.utf32BigEndian, 4)
        } else if bytes.count >= 4, bytes.starts(with: [0xFF, 0xFE, 0x00, 0x00]) {
            (encoding, skip) = (.utf32LittleEndian, 4)
        } else if bytes.count >= 4, bytes.starts(with: [0xFF, 0xFE]) {
            (encoding, skip) = (.utf16LittleEndian, 2)
        } else if bytes.count >= 4, bytes.starts(with: [0xFE, 0xFF]) {
            (encoding, skip) = (.utf16BigEndian, 2)
        } else if bytes.count >= 4 {
            switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
            case (0, 0, 0, _): encoding = .utf32BigEndian
            case (_, 0, 0, 0): encoding = .utf32LittleEndian
            case (0, _, 0, _): encoding = .utf16BigEndian
            case (_, 0, _, 0): encoding = .utf16LittleEndian
            default: return bytes
            }
        } else if bytes.count >= 2 {
            switch (bytes[0], bytes[1]) {
            case (0, _): encoding = .utf16BigEndian
            case (_, 0): encoding = .utf16LittleEndian
            default: return bytes
            }
        } else {
            return bytes
        }
        guard let text = String(bytes: bytes[skip...], encoding: encoding) else {
            throw ParseError(description: "Cannot convert input string to valid utf8 input.")
        }
        return Array(text.utf8)
    }

    /// JSONSerialization's reader (swift-corelibs-foundation, JSONSerialization+Parser.swift).
    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        var depth = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        func fail(_ what: String, at offset: Int? = nil) -> ParseError {
            ParseError(description: "\(what) around character \(offset ?? index)")
        }

        static func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }

        mutating func document() throws(ParseError) -> UntypedJSON {
            let value = try self.value()
            while index < bytes.count {
                guard Self.isSpace(bytes[index]) else { throw fail("unexpected character") }
                index += 1
            }
            return value
        }

        /// Skips white space and returns the next byte (not consumed); the end of the text throws.
        mutating func next() throws(ParseError) -> UInt8 {
            while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
            guard index < bytes.count else { throw fail("unexpected end of file") }
            return bytes[index]
        }

        mutating func value() throws(ParseError) -> UntypedJSON {
            switch try next() {
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "{"): return try object()
            case UInt8(ascii: "["): return try array()
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try UntypedJSON.number(try number()))
            default: throw fail("unexpected character")
            }
        }

        mutating func literal(_ word: String) throws(ParseError) {
            for expected in word.utf8 {
                guard index < bytes.count else { throw fail("unexpected end of file") }
                guard bytes[index] == expected else { throw fail("unexpected character") }
                index += 1
            }
        }

        mutating func enter() throws(ParseError) {
            guard depth < 512 else { throw fail("too many nested arrays or dictionaries") }
            depth += 1
            index += 1
        }

        mutating func array() throws(ParseError) -> UntypedJSON {
            try enter()
            defer { depth -= 1 }
            var values: [UntypedJSON] = []
            if try next() == UInt8(ascii: "]") {
                index += 1
                return .array(values)
            }
            while true {
                values.append(try value())
                switch try next() {
                case UInt8(ascii: "]"):
                    index += 1
                    return .array(values)
                case UInt8(ascii: ","):
                    index += 1
                    if try next() == UInt8(ascii: "]") {
                        index += 1
                        return .array(values)
                    }
                default:
                    throw fail("unexpected character")
                }
            }
        }

        mutating func object() throws(ParseError) -> UntypedJSON {
            try enter()
            defer { depth -= 1 }
            var members: [String: UntypedJSON] = [:]
            if try next() == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                guard bytes[index] == UInt8(ascii: "\"") else { throw fail("unexpected character") }
                let key = try string()
                guard try next() == UInt8(ascii: ":") else { throw fail("unexpected character") }
                index += 1
                _ = try next()
                members[key] = try value()
                switch try next() {
                case UInt8(ascii: "}"):
                    index += 1
                    return .object(members)
                case UInt8(ascii: ","):
                    index += 1
                    if try next() == UInt8(ascii: "}") {
                        index += 1
                        return .object(members)
                    }
                default:
                    throw fail("unexpected character")
                }
            }
        }

        /// The text of `bytes[range]`, which must be valid UTF-8.
        func text(_ range: Range<Int>) throws(ParseError) -> String {
            guard let text = String(bytes: bytes[range], encoding: .utf8) else { throw fail("invalid UTF-8 sequence", at: range.lowerBound) }
            return text
        }

        mutating func string() throws(ParseError) -> String {
            index += 1
            var start = index
            var output = ""
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    output += try text(start..<index)
                    index += 1
                    return output
                case 0...31:
                    throw fail("unescaped control character")
                case UInt8(ascii: "\\"):
                    output += try text(start..<index)
                    index += 1
                    output.unicodeScalars.append(try escaped())
                    start = index
                default:
                    index += 1
                }
            }
            throw fail("unexpected end of file")
        }

        /// The character after a backslash (consumed).
        mutating func escaped() throws(ParseError) -> Unicode.Scalar {
            guard index < bytes.count else { throw fail("unexpected end of file") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let unit = try hex4()
                if unit & 0xFC00 == 0xD800 {
                    guard index + 2 <= bytes.count else { throw fail("unexpected end of file") }
                    guard bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw fail("expected low-surrogate code point")
                    }
                    index += 2
                    let low = try hex4()
                    guard low & 0xFC00 == 0xDC00 else { throw fail("expected low-surrogate code point") }
                    return Unicode.Scalar((UInt32(unit) - 0xD800) * 0x400 + (UInt32(low) - 0xDC00) + 0x10000)!
                }
                guard let scalar = Unicode.Scalar(unit) else { throw fail("unable to convert hex escape sequence (no high character)") }
                return scalar
            default:
                throw fail("invalid escape sequence")
            }
        }

        mutating func hex4() throws(ParseError) -> UInt16 {
            guard index + 4 <= bytes.count else { throw fail("unexpected end of file") }
            var value: UInt16 = 0
            for byte in bytes[index..<index + 4] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                default: throw fail("invalid hex encoded sequence")
                }
                value = value << 4 | UInt16(digit)
            }
            index += 4
            return value
        }

        /// The number's text as it stands, checked as JSONSerialization checks it.
        mutating func number() throws(ParseError) -> String {
            enum Part { case operand, decimalPoint, exponent, exponentSign }
            var part = Part.operand
            var digitsSincePart = bytes[index] == UInt8(ascii: "-") ? 0 : 1
            var leadingZero = bytes[index] == UInt8(ascii: "0")
            var end = index + 1
            scan: while end < bytes.count {
                let byte = bytes[end]
                switch byte {
                case UInt8(ascii: "0"):
                    if leadingZero { throw fail("number with leading zero", at: end) }
                    if digitsSincePart == 0, part == .operand { leadingZero = true }
                    digitsSincePart += 1
                case UInt8(ascii: "1")...UInt8(ascii: "9"):
                    if leadingZero { throw fail("number with leading zero", at: end) }
                    digitsSincePart += 1
                case UInt8(ascii: "."):
                    guard digitsSincePart > 0, part == .operand else { throw fail("unexpected character", at: end) }
                    (leadingZero, part, digitsSincePart) = (false, .decimalPoint, 0)
                case UInt8(ascii: "e"), UInt8(ascii: "E"):
                    guard digitsSincePart > 0, part == .operand || part == .decimalPoint else { throw fail("unexpected character", at: end) }
                    (leadingZero, part, digitsSincePart) = (false, .exponent, 0)
                case UInt8(ascii: "+"), UInt8(ascii: "-"):
                    guard digitsSincePart == 0, part == .exponent else { throw fail("unexpected character", at: end) }
                    (part, digitsSincePart) = (.exponentSign, 0)
                case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"):
                    break scan
                default:
                    throw fail("unexpected character", at: end)
                }
                end += 1
            }
            guard digitsSincePart > 0 else { throw fail(end < bytes.count ? "unexpected character" : "unexpected end of file", at: end) }
            defer { index = end }
            return String(decoding: bytes[index..<end], as: UTF8.self)
        }
    }

    /// How JSONSerialization prints a number it read (`NSNumber.fromJSONNumber`, then its writer).
    static func number(_ text: String) throws(ParseError) -> String {
        let exponent = text.firstIndex(of: "e")  // lower case only, as there
        let isInteger = text.firstIndex(of: ".") == nil && exponent == nil
        let characters = text[..<(exponent ?? text.endIndex)].count
        if isInteger {
            if text.hasPrefix("-") {
                if characters <= 19, let value = Int64(text) { return String(value) }
            } else if characters <= 20, let value = UInt64(text) {
                return String(value)
            }
        }
        var power = 0
        if let exponent, let parsed = Int(text[text.index(after: exponent)...]) { power = parsed }
        if characters > 17, power >= -128, power <= 127, let decimal = Decimal(string: text), decimal.isFinite {
            return decimal.description
        }
        guard let value = Double(text), value.isFinite else {
            throw ParseError(description: "Number \(text) is not representable in Swift.")
        }
        var printed = value.description
        if printed.hasSuffix(".0") { printed.removeLast(2) }
        return printed
    }
}
