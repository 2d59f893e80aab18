@testable import FlowJSON
import FlowdTestSupport
import Foundation
import Testing

// The fast JSON coders against Foundation: byte-identical encoding, equal decoded values, Foundation's
// errors. `encodeWithoutFallback`/`decodeWithoutFallback` check the fast path itself; `encode`/`decode`
// check what the runtime uses (fast path plus fallback).

private struct CardState: Codable, Equatable {
    var title: String
    var body: String
    var buttons: [String]
    var field: String?
    var text: String?
}

private enum CardOutput: Codable, Equatable {
    case didPressButton(index: Int)
    case didEnterText(String)
}

private enum Mode: Codable, Equatable { case idle, busy }
private enum Raw: String, Codable, Equatable { case one, two = "Two" }

/// Properties declared out of key order, so the encoder must reorder.
private struct Unsorted: Codable, Equatable {
    var zeta: Int
    var alpha: String
    var Mid: Bool
    var _under: [Int]
    var a10: Int8
    var a9: UInt16
}

private struct Integers: Codable, Equatable {
    var i: Int, i8: Int8, i16: Int16, i32: Int32, i64: Int64
    var u: UInt, u8: UInt8, u16: UInt16, u32: UInt32, u64: UInt64
}

private struct Nested: Codable, Equatable {
    var card: CardState
    var outputs: [CardOutput]
    var byName: [String: CardState]
    var byNumber: [Int: String]
    var mode: Mode
    var raw: Raw
    var maybe: Integers?
    var matrix: [[Int?]]
    var flag: Bool
    var empty: [String]
}

// The coders reuse buffers and are not thread-safe; parameterized tests run in parallel, so every
// use gets its own (the randomized test reuses one pair for all its values).
private var fast: FastJSONEncoder { FastJSONEncoder() }
private var fastDecoder: FastJSONDecoder { FastJSONDecoder() }

private func foundationJSON<T: Encodable>(_ value: T) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(value)
}

/// Checks the fast path alone (if `fastPath`) and the fallback-backed encoder against Foundation.
private func expectSameBytes<T: Encodable>(_ value: T, fastPath: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let expected = try foundationJSON(value)
    if fastPath {
        let bytes = try fast.encodeWithoutFallback(value)
        #expect(String(decoding: bytes, as: UTF8.self) == String(decoding: expected, as: UTF8.self), sourceLocation: sourceLocation)
    }
    #expect(try fast.encode(value) == expected, sourceLocation: sourceLocation)
}

/// Checks that both decoders decode `json` to equal values (the fast path alone if `fastPath`).
private func expectSameValue<T: Decodable & Equatable>(_ json: String, as type: T.Type, fastPath: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let data = Data(json.utf8)
    let expected = try JSONDecoder().decode(type, from: data)
    if fastPath {
        #expect(try fastDecoder.decodeWithoutFallback(type, from: data) == expected, sourceLocation: sourceLocation)
    }
    #expect(try fastDecoder.decode(type, from: data) == expected, sourceLocation: sourceLocation)
}

private let awkwardStrings: [String] = [
    "", "plain", "quote \" here", "back\\slash", "a/b//c", "tab\tnew\nline\rret", "\u{08}\u{0C}\u{00}\u{01}\u{1F}\u{7F}",
    "é ü ß 中文", "emoji 😀👍🏽🇸🇪", "\u{2028}\u{2029}", "e\u{301}", "\u{FFFF}", String(repeating: "long text ", count: 2000),
]

private let sampleCard = CardState(title: "Welcome", body: "Body \"quoted\" / slashed", buttons: ["Next", "Skip"], field: "Name", text: nil)

private func sampleNested() -> Nested {
    Nested(
        card: sampleCard,
        outputs: [.didPressButton(index: 0), .didEnterText("x"), .didPressButton(index: -7)],
        byName: ["b": sampleCard, "B": CardState(title: "", body: "", buttons: [], field: nil, text: "t"), "a10": sampleCard, "a9": sampleCard],
        byNumber: [1: "one", 10: "ten", 2: "two", -1: "minus"],
        mode: .busy, raw: .two,
        maybe: Integers(i: .min, i8: .min, i16: .max, i32: .min, i64: .max, u: .max, u8: .max, u16: 0, u32: .max, u64: .max),
        matrix: [[1, nil, 3], [], [nil]], flag: false, empty: [])
}

@Suite("JSON coding")
struct JSONCodingTests {
    @Test("CardState and CardOutput encode to Foundation's bytes")
    func cardTypes() throws {
        try expectSameBytes(sampleCard)
        try expectSameBytes(CardState(title: "t", body: "", buttons: [], field: nil, text: nil))
        try expectSameBytes(CardState(title: "t", body: "b", buttons: ["1", "2", "3"], field: "f", text: "x"))
        try expectSameBytes(CardOutput.didPressButton(index: 0))
        try expectSameBytes(CardOutput.didPressButton(index: Int.max))
        try expectSameBytes(CardOutput.didEnterText("x"))
        try expectSameBytes(CardOutput.didEnterText(""))
        try #require(String(decoding: try fast.encodeWithoutFallback(CardOutput.didPressButton(index: 0)), as: UTF8.self) == #"{"didPressButton":{"index":0}}"#)
        try #require(String(decoding: try fast.encodeWithoutFallback(CardOutput.didEnterText("x")), as: UTF8.self) == #"{"didEnterText":{"_0":"x"}}"#)
    }

    @Test("strings escape like Foundation", arguments: awkwardStrings)
    func strings(_ string: String) throws {
        try expectSameBytes(string)
        try expectSameBytes([string])
        try expectSameBytes(CardOutput.didEnterText(string))
        try expectSameValue(String(decoding: try foundationJSON(string), as: UTF8.self), as: String.self)
    }

    @Test("every ASCII character escapes like Foundation")
    func allASCII() throws {
        for byte in UInt8(0)..<UInt8(0x80) {
            try expectSameBytes(String(UnicodeScalar(byte)))
        }
    }

    @Test("integers, Bools, nil, nesting, reordered keys, dictionaries and enums")
    func corpus() throws {
        try expectSameBytes(Integers(i: .min, i8: .min, i16: .min, i32: .min, i64: .min, u: 0, u8: 0, u16: 0, u32: 0, u64: 0))
        try expectSameBytes(Integers(i: .max, i8: .max, i16: .max, i32: .max, i64: .max, u: .max, u8: .max, u16: .max, u32: .max, u64: .max))
        try expectSameBytes(Unsorted(zeta: 1, alpha: "a", Mid: true, _under: [1, 2], a10: -1, a9: 9))
        try expectSameBytes(sampleNested())
        try expectSameBytes([Mode.idle, .busy])
        try expectSameBytes([Raw.one, .two])
        try expectSameBytes(true)
        try expectSameBytes(Int.min)
        try expectSameBytes(UInt64.max)
        try expectSameBytes([String: Int]())
        try expectSameBytes([Int]())
        try expectSameBytes([Int?]([nil, 1]))
        try expectSameBytes(["z": 1, "Z": 2, "a": 3, "A": 4, "_": 5, "1": 6, "10": 7, "2": 8, "a-": 9, "aa": 10])
        try expectSameBytes([1: "x", 10: "y", 2: "z", -1: "w"])
        try expectSameBytes([[String: [Int]]](repeating: ["k": [1, 2], "j": []], count: 3))
    }

    @Test("what goes to Foundation still comes out as Foundation's bytes")
    func fallbacks() throws {
        struct WithDouble: Codable { var x: Double; var n: Int }
        struct WithFoundationTypes: Codable { var date: Date; var data: Data; var url: URL; var decimal: Decimal }
        try expectSameBytes(WithDouble(x: 0.1, n: 1), fastPath: false)
        #expect(throws: UnsupportedJSON.self) { try fast.encodeWithoutFallback(WithDouble(x: 0.1, n: 1)) }
        try expectSameBytes(WithFoundationTypes(date: Date(timeIntervalSince1970: 1), data: Data([1, 2]), url: URL(string: "https://a.b/c")!, decimal: 1.5), fastPath: false)
        #expect(throws: UnsupportedJSON.self) { try fast.encodeWithoutFallback(Data([1])) }
        // Non-ASCII keys and keys needing escapes.
        try expectSameBytes(["é": 1, "e": 2, "ａ": 3, "😀": 4, "\u{FFFF}": 5, "e\u{301}x": 6, "éa": 7], fastPath: false)
        try expectSameBytes(["a/b": 1, "q\"": 2], fastPath: false)
        // Classes with superEncoder, duplicate keys, interleaved containers.
        try expectSameBytes(SuperUser(), fastPath: false)
        try expectSameBytes(DuplicateKeys(), fastPath: false)
        try expectSameBytes(Interleaved(), fastPath: false)
        try expectSameBytes(TwoContainers())
        try expectSameBytes([EncodesNothing()])
        #expect(throws: EncodingError.self) { try fast.encode(EncodesNothing()) }
        #expect(throws: EncodingError.self) { try fast.encode(Double.nan) }
        struct Wide: Codable, Equatable { var a: Int128; var b: UInt128 }
        try expectSameBytes(Wide(a: .min, b: .max), fastPath: false)
        try expectSameValue(#"{"a":-170141183460469231731687303715884105728,"b":340282366920938463463374607431768211455}"#, as: Wide.self, fastPath: false)
    }

    @Test("decoding matches Foundation on whitespace, escapes, key order and unknown keys")
    func decoding() throws {
        try expectSameValue(#"{"title":"T","body":"","buttons":["a","b"],"field":null}"#, as: CardState.self)
        try expectSameValue(" \n{ \"buttons\" :[ ] ,\t\"title\" : \"T\\u00e9\\ud83d\\ude00\\n\\/\\\"\" , \"body\":\"b\", \"text\": \"x\", \"extra\": {\"deep\": [1, 2.5e3, true, null, {}]}}\r\n", as: CardState.self)
        try expectSameValue(#"{"didPressButton":{"index":3}}"#, as: CardOutput.self)
        try expectSameValue(#"{"didPressButton" : { "index" : -3 , "other": "x"} }"#, as: CardOutput.self)
        try expectSameValue(#"{"didEnterText":{"_0":"caf\u00e9 \u4e2d"}}"#, as: CardOutput.self)
        try expectSameValue(String(decoding: try foundationJSON(sampleNested()), as: UTF8.self), as: Nested.self)
        try expectSameValue(#"{"a":1,"a":2}"#, as: [String: Int].self, fastPath: false)
        try expectSameValue(#"{"a":1,"b":2,"é":3}"#, as: [String: Int].self)
        try expectSameValue(#"{"idle":{}}"#, as: Mode.self)
        try expectSameValue(#"["one","Two"]"#, as: [Raw].self)
        try expectSameValue("[-9223372036854775808, 9223372036854775807, 0, -0]", as: [Int].self)
        try expectSameValue("[18446744073709551615]", as: [UInt64].self)
        // Large objects (looked up through an index): a dictionary, and a struct whose keys come among
        // many others, with a duplicate (the first wins).
        let big = Dictionary(uniqueKeysWithValues: (0..<2000).map { ("key\($0)", $0) })
        try expectSameValue(String(decoding: try foundationJSON(big), as: UTF8.self), as: [String: Int].self)
        let padding = (0..<40).map { "\"p\($0)\":\($0)" }.joined(separator: ",")
        try expectSameValue(#"{"title":"first",\#(padding),"body":"b","buttons":["x"],"title":"second","text":null}"#, as: CardState.self)
        // Foundation accepts integers written as 1.0 or 1e2: the fallback does.
        try expectSameValue(#"{"didPressButton":{"index":1.0}}"#, as: CardOutput.self, fastPath: false)
        try expectSameValue("[1e2]", as: [Int].self, fastPath: false)
        try expectSameValue("[0.5, 1e300]", as: [Double].self, fastPath: false)
        // Foundation accepts trailing commas: the fallback does.
        try expectSameValue(#"{"title":"T","body":"","buttons":[1,],}"#.replacingOccurrences(of: "1,", with: "\"x\","), as: CardState.self, fastPath: false)
    }

    @Test("errors the fast path throws and a type swallows with try? still send the value to Foundation")
    func swallowedErrors() throws {
        try expectSameValue(#"{"x":0.5,"n":1.0}"#, as: Lenient.self, fastPath: false)
        #expect(try FastJSONDecoder().decode(Lenient.self, from: Data(#"{"x":0.5,"n":1.0}"#.utf8)) == Lenient(x: 0.5, n: 1))
        try expectSameBytes(Lenient(x: 0.25, n: 2), fastPath: false)
        #expect(throws: UnsupportedJSON.self) { try fast.encodeWithoutFallback(Lenient(x: 0.25, n: 2)) }
    }

    @Test("bad inputs throw Foundation's errors", arguments: [
        #"{"title":"T","body":"","buttons":[]"#, #"{"title":1,"body":"","buttons":[]}"#, #"{"body":"","buttons":[]}"#,
        #"{"title":"T","body":"","buttons":[1]}"#, "", "null", "[]",
        #"{"title":"\ud800","body":"","buttons":[]}"#, "{\"title\":\"a\u{01}\",\"body\":\"\",\"buttons\":[]}", #"{"title":"T","body":"","buttons":[]} x"#,
    ])
    func badInputs(_ json: String) throws {
        #expect(throws: (any Error).self) { try fastDecoder.decodeWithoutFallback(CardState.self, from: Data(json.utf8)) }
        #expect(throws: DecodingError.self) { try fastDecoder.decode(CardState.self, from: Data(json.utf8)) }
        #expect(throws: DecodingError.self) { try fastDecoder.decode(CardOutput.self, from: Data(json.utf8)) }
    }

    @Test("invalid UTF-8 and a missing case throw")
    func badBytes() throws {
        #expect(throws: DecodingError.self) { try fastDecoder.decode(String.self, from: Data([0x22, 0xFF, 0x22])) }
        #expect(throws: DecodingError.self) { try fastDecoder.decode(CardOutput.self, from: Data(#"{"nope":{}}"#.utf8)) }
        #expect(throws: DecodingError.self) { try fastDecoder.decode(UInt8.self, from: Data("256".utf8)) }
        #expect(throws: DecodingError.self) { try fastDecoder.decode(Int.self, from: Data("01".utf8)) }
    }

    @Test("random values encode to Foundation's bytes and decode back equal")
    func randomized() throws {
        var rng = SeededGenerator(seed: 2026)
        let fast = FastJSONEncoder()
        let fastDecoder = FastJSONDecoder()
        var fastEncodes = 0
        var fastDecodes = 0
        for _ in 0..<3000 {
            let value = RandomNode.make(depth: 0, &rng)
            let expected = try foundationJSON(value)
            #expect(try fast.encode(value) == expected)
            if let bytes = try? fast.encodeWithoutFallback(value) {
                fastEncodes += 1
                #expect(bytes == expected)
            }
            let decoded = try fastDecoder.decode(RandomNode.self, from: expected)
            #expect(decoded == value)
            if let direct = try? fastDecoder.decodeWithoutFallback(RandomNode.self, from: expected) {
                fastDecodes += 1
                #expect(direct == value)
            }
            // Other whitespace and key order (JSONSerialization's pretty printing).
            let object = try JSONSerialization.jsonObject(with: expected, options: [.fragmentsAllowed])
            let pretty = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .fragmentsAllowed])
            #expect(try fastDecoder.decode(RandomNode.self, from: pretty) == JSONDecoder().decode(RandomNode.self, from: pretty))
        }
        // Most values take the fast path (the rest have non-ASCII dictionary keys).
        #expect(fastEncodes > 2000)
        #expect(fastDecodes > 2500)
    }
}

/// A recursive value for the randomized test.
private indirect enum RandomNode: Codable, Equatable {
    case leaf(Int)
    case text(String)
    case flag(Bool)
    case list([RandomNode])
    case record(RandomRecord)
    case map([String: RandomNode])
    case nothing

    static func make(depth: Int, _ rng: inout SeededGenerator) -> RandomNode {
        switch Int.random(in: 0..<(depth > 3 ? 4 : 7), using: &rng) {
        case 0: return .leaf(randomInt(&rng))
        case 1: return .text(randomString(&rng))
        case 2: return .flag(Bool.random(using: &rng))
        case 3: return .nothing
        case 4: return .list((0..<Int.random(in: 0..<4, using: &rng)).map { _ in make(depth: depth + 1, &rng) })
        case 5: return .record(RandomRecord.make(depth: depth + 1, &rng))
        default:
            var map: [String: RandomNode] = [:]
            for _ in 0..<Int.random(in: 0..<4, using: &rng) { map[randomKey(&rng)] = make(depth: depth + 1, &rng) }
            return .map(map)
        }
    }

    static func randomInt(_ rng: inout SeededGenerator) -> Int {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return [Int.min, Int.max, 0, -1][Int.random(in: 0..<4, using: &rng)]
        case 1: return Int.random(in: -10...10, using: &rng)
        default: return Int(truncatingIfNeeded: rng.next())
        }
    }

    static let pieces: [String] = ["a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "é", "ß", "中", "😀", "🇸🇪", "e\u{301}", "\u{7F}", "x y", "0"]

    static func randomString(_ rng: inout SeededGenerator) -> String {
        (0..<Int.random(in: 0..<12, using: &rng)).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &rng)] }.joined()
    }

    static let keyPieces: [String] = ["a", "b", "B", "A", "_", "1", "10", "2", "-", "z", "Z", "aa"]

    static func randomKey(_ rng: inout SeededGenerator) -> String {
        if Int.random(in: 0..<20, using: &rng) == 0 { return "ké" + String(Int.random(in: 0..<3, using: &rng)) }
        return (0..<Int.random(in: 0..<4, using: &rng)).map { _ in keyPieces[Int.random(in: 0..<keyPieces.count, using: &rng)] }.joined()
    }
}

private struct RandomRecord: Codable, Equatable {
    var name: String
    var count: Int64?
    var small: UInt8
    var tags: [String]
    var child: RandomNode?
    var flags: [Bool?]

    static func make(depth: Int, _ rng: inout SeededGenerator) -> RandomRecord {
        RandomRecord(
            name: RandomNode.randomString(&rng),
            count: Bool.random(using: &rng) ? Int64(truncatingIfNeeded: rng.next()) : nil,
            small: UInt8.random(in: 0...255, using: &rng),
            tags: (0..<Int.random(in: 0..<3, using: &rng)).map { _ in RandomNode.randomString(&rng) },
            child: Bool.random(using: &rng) ? RandomNode.make(depth: depth + 1, &rng) : nil,
            flags: (0..<Int.random(in: 0..<3, using: &rng)).map { _ in Bool.random(using: &rng) ? Bool.random(using: &rng) : nil })
    }
}

private class BaseUser: Encodable {
    var id = 1
    private enum CodingKeys: String, CodingKey { case id }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
    }
}

private final class SuperUser: BaseUser {
    var name = "n"
    private enum CodingKeys: String, CodingKey { case name }
    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try super.encode(to: container.superEncoder())
    }
}

private struct AnyKey: CodingKey {
    var stringValue: String
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

private struct DuplicateKeys: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(1, forKey: AnyKey("b"))
        try container.encode(2, forKey: AnyKey("a"))
        try container.encode(3, forKey: AnyKey("b"))
    }
}

private struct Interleaved: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        var nested = container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("n"))
        try container.encode(1, forKey: AnyKey("z"))
        try nested.encode(2, forKey: AnyKey("a"))
    }
}

private struct TwoContainers: Encodable {
    func encode(to encoder: any Encoder) throws {
        var first = encoder.container(keyedBy: AnyKey.self)
        try first.encode(1, forKey: AnyKey("z"))
        var second = encoder.container(keyedBy: AnyKey.self)
        try second.encode(2, forKey: AnyKey("a"))
    }
}

/// Swallows errors with `try?`: the fast path must not let that hide a value it could not handle.
private struct Lenient: Codable, Equatable {
    var x: Double
    var n: Int
    private enum CodingKeys: String, CodingKey { case x, n }
    init(x: Double, n: Int) { self.x = x; self.n = n }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        x = (try? container.decode(Double.self, forKey: .x)) ?? -1
        n = (try? container.decode(Int.self, forKey: .n)) ?? -1
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try? container.encode(x, forKey: .x)
        try container.encode(n, forKey: .n)
    }
}

private struct EncodesNothing: Encodable {
    func encode(to encoder: any Encoder) throws {}
}
