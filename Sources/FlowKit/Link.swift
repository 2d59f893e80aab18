/// A place in an app, as a path of segments with optional query values: `students/Bob/age`,
/// `directory/events/Party?from=notification`. Parsed from text with `Link(parsing:)`, which
/// percent-decodes and validates (docs/flows.md, Links); `description` is the canonical text, and
/// `Link(parsing: link.description) == link` always holds.
///
/// Limits (a link comes from outside: a notification, a URL handler, another process):
/// at most `maxBytes` (2048) bytes of text, `maxSegments` (32) segments, `maxSegmentBytes` (256)
/// UTF-8 bytes per decoded segment, query name or value, and `maxQueryItems` (16) query items.
public struct Link: Hashable, Sendable, CustomStringConvertible {
    /// One `name=value` of the query (`value` is empty for a bare `name`).
    public struct QueryItem: Hashable, Sendable {
        /// The decoded name, never empty.
        public var name: String
        /// The decoded value.
        public var value: String

        /// An item.
        public init(_ name: String, _ value: String = "") {
            self.name = name
            self.value = value
        }
    }

    /// The longest link text accepted, in bytes.
    public static let maxBytes = 2048
    /// The most segments a link may have.
    public static let maxSegments = 32
    /// The longest decoded segment (or query name or value), in UTF-8 bytes.
    public static let maxSegmentBytes = 256
    /// The most query items a link may have.
    public static let maxQueryItems = 16

    /// The decoded path segments, at least one, none empty.
    public let segments: [String]
    /// The decoded query items, in order.
    public let query: [QueryItem]

    /// A link from decoded segments and query items, validated as `Link(parsing:)` validates.
    public init(_ segments: [String], query: [QueryItem] = []) throws(LinkError) {
        guard !segments.isEmpty else { throw LinkError(.empty, "a link needs at least one segment") }
        guard segments.count <= Self.maxSegments else {
            throw LinkError(.tooLong, "the link has \(segments.count) segments; at most \(Self.maxSegments) are allowed")
        }
        guard query.count <= Self.maxQueryItems else {
            throw LinkError(.tooLong, "the link has \(query.count) query items; at most \(Self.maxQueryItems) are allowed")
        }
        for (index, segment) in segments.enumerated() {
            try Self.check(segment, "segment \(index)", segment: index, allowEmpty: false)
        }
        for item in query {
            try Self.check(item.name, "a query name", segment: nil, allowEmpty: false)
            try Self.check(item.value, "the value of query item \(item.name)", segment: nil, allowEmpty: true)
        }
        self.segments = segments
        self.query = query
        guard description.utf8.count <= Self.maxBytes else {
            throw LinkError(.tooLong, "the link is \(description.utf8.count) bytes as text; at most \(Self.maxBytes) are allowed")
        }
    }

    /// Parses link text: segments separated by `/`, then optionally `?name=value&name`. Bytes
    /// outside letters, digits and `-._~!$'()*+,;:@` must be percent-encoded (`%20`), `=` and `&`
    /// outside the query too; the decoded text must be UTF-8 without control characters. Throws
    /// (never traps) a `LinkError` naming what is wrong and where.
    public init(parsing text: String) throws(LinkError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw LinkError(.empty, "the link is empty; give a path such as students/Bob") }
        guard bytes.count <= Self.maxBytes else {
            throw LinkError(.tooLong, "the link is \(bytes.count) bytes; at most \(Self.maxBytes) are allowed")
        }
        let question = bytes.firstIndex(of: UInt8(ascii: "?"))
        let path = bytes[..<(question ?? bytes.endIndex)]
        let parts = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count <= Self.maxSegments else {
            throw LinkError(.tooLong, "the link has \(parts.count) segments; at most \(Self.maxSegments) are allowed")
        }
        var segments: [String] = []
        for (index, part) in parts.enumerated() {
            guard !part.isEmpty else {
                let what = parts.count == 1 ? "the link has no path" : "segment \(index) is empty (a leading, trailing or doubled /)"
                throw LinkError(.emptySegment, "\(what); write segments separated by single slashes", segment: index)
            }
            segments.append(try Self.decode(part, offset: part.startIndex, "segment \(index)", segment: index, inQuery: false))
        }
        var query: [QueryItem] = []
        if let question {
            let rest = bytes[(question + 1)...]
            guard !rest.isEmpty else { throw LinkError(.invalidQuery, "the link ends with an empty query after ?; leave the ? out") }
            let items = rest.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false)
            guard items.count <= Self.maxQueryItems else {
                throw LinkError(.tooLong, "the link has \(items.count) query items; at most \(Self.maxQueryItems) are allowed")
            }
            for item in items {
                let equals = item.firstIndex(of: UInt8(ascii: "="))
                let name = item[..<(equals ?? item.endIndex)]
                guard !name.isEmpty else {
                    throw LinkError(.invalidQuery, "a query item at byte \(item.startIndex) has no name; write name=value separated by &")
                }
                let value = equals.map { item[($0 + 1)...] } ?? []
                query.append(QueryItem(try Self.decode(name, offset: name.startIndex, "a query name", segment: nil, inQuery: true),
                                       try Self.decode(value, offset: value.startIndex, "a query value", segment: nil, inQuery: true)))
            }
        }
        self.segments = segments
        self.query = query
    }

    /// The canonical text: segments and query percent-encoded where needed.
    public var description: String {
        var text = segments.map { Self.encode($0) }.joined(separator: "/")
        if !query.isEmpty {
            text += "?" + query.map { $0.value.isEmpty ? Self.encode($0.name) : "\(Self.encode($0.name))=\(Self.encode($0.value))" }.joined(separator: "&")
        }
        return text
    }

    /// The value of the first query item named `name`.
    public func value(of name: String) -> String? { query.first { $0.name == name }?.value }

    // MARK: coding

    /// Bytes that stand for themselves in link text (RFC 3986 unreserved and some sub-delimiters).
    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "-._~!$'()*+,;:@".utf8.contains(byte)
        }
    }

    private static func encode(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            if isPlain(byte) { out.append(byte) } else { out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]] }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func decode(_ part: ArraySlice<UInt8>, offset: Int, _ what: String, segment: Int?, inQuery: Bool) throws(LinkError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(part.count)
        var index = part.startIndex
        while index < part.endIndex {
            let byte = part[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < part.endIndex,
                      let high = hexValue(part[index + 1]), let low = hexValue(part[index + 2]) else {
                    throw LinkError(.invalidPercentEncoding, "\(what) has a % at byte \(index) not followed by two hex digits; write %25 for a literal %", segment: segment)
                }
                out.append(high << 4 | low)
                index += 3
                continue
            }
            guard isPlain(byte) else {
                let shown = byte >= 0x21 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
                let hint = inQuery && (byte == UInt8(ascii: "=")) ? "; a query value may hold = only percent-encoded (%3D)" : ""
                throw LinkError(.invalidCharacter, "\(what) has \(shown) at byte \(index), which must be percent-encoded\(hint)", segment: segment)
            }
            out.append(byte)
            index += 1
        }
        guard let text = String(validating: out, as: UTF8.self) else {
            throw LinkError(.notUTF8, "\(what) does not decode to UTF-8; percent-encode the UTF-8 bytes of the text", segment: segment)
        }
        try check(text, what, segment: segment, allowEmpty: true)
        return text
    }

    /// Checks a decoded piece: its length, no control characters, and (unless allowed) not empty.
    private static func check(_ text: String, _ what: String, segment: Int?, allowEmpty: Bool) throws(LinkError) {
        guard allowEmpty || !text.isEmpty else { throw LinkError(.emptySegment, "\(what) is empty", segment: segment) }
        guard text.utf8.count <= maxSegmentBytes else {
            throw LinkError(.tooLong, "\(what) is \(text.utf8.count) bytes decoded; at most \(maxSegmentBytes) are allowed", segment: segment)
        }
        if let control = text.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            throw LinkError(.invalidCharacter, "\(what) holds the control character U+\(String(control.value, radix: 16, uppercase: true)); links carry printable text only", segment: segment)
        }
    }
}
