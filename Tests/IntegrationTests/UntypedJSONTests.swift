import FlowControl
import Foundation
import Testing

/// flowctl's JSON (`watch --json` payloads, `describe --kind`, `inject`'s check) reads and prints
/// as JSONSerialization did, without linking it: pinned outputs, then the same inputs through
/// Foundation's JSONSerialization, which the tests may link.
@Suite struct UntypedJSONTests {
    /// What flowctl printed for `{"p": VALUE}` through JSONSerialization, or nil when it refused VALUE.
    static func foundation(_ text: String) -> String? {
        guard let value = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]),
              let data = try? JSONSerialization.data(withJSONObject: ["p": value], options: [.sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func flowctl(_ text: String) -> String? {
        (try? UntypedJSON(parsing: Array(text.utf8), fragmentsAllowed: true)).map { UntypedJSON.object(["p": $0]).text }
    }

    @Test func printsWhatJSONSerializationPrinted() {
        let pinned: [(String, String)] = [
            // Numbers: integers as they are, doubles as Swift prints them without ".0", long ones as Decimal.
            ("0", "0"), ("-0", "0"), ("-0.0", "-0"), ("1.0", "1"), ("1e2", "100"), ("1E2", "100"), ("2.5e+3", "2500"),
            ("0.1", "0.1"), ("1e-7", "1e-07"), ("1e21", "1e+21"), ("3.14159", "3.14159"),
            ("18446744073709551615", "18446744073709551615"), ("18446744073709551616", "18446744073709551616"),
            ("-9223372036854775808", "-9223372036854775808"), ("-9223372036854775809", "-9223372036854775809"),
            ("123456789012345678901234", "123456789012345678901234"), ("1.23456789012345678", "1.23456789012345678"),
            ("9007199254740993", "9007199254740993"), ("1e-400", "0"),
            // Strings: `/` as it is, `"` `\` and controls escaped, everything else as UTF-8.
            (#""a/b\/c""#, #""a/b/c""#), (#""\u00e9 é \ud83d\ude00""#, #""é é 😀""#),
            (#""\b\f\n\r\t\u0001\u001f\u007f""#, #""\b\f\n\r\t\u0001\u001f\#u{7F}""#), (#""q\"q\\""#, #""q\"q\\""#),
            // Containers: keys sorted, empty ones as they are, trailing commas read, the last duplicate kept.
            ("[]", "[]"), ("{}", "{}"), ("[1,]", "[1]"), (#"{"a":1,}"#, #"{"a":1}"#), (#"{"a":1,"a":2}"#, #"{"a":2}"#),
            (#" { "b" : [ true , false , null ] , "a" : { } } "#, #"{"a":{},"b":[true,false,null]}"#),
            (#"{"x10":1,"x9":2,"X10":3,"x_1":4,"x-1":5,"B":6,"a":7,"output_content_type":8,"outputs":9,"$schema":10,"":11}"#,
             #"{"":11,"$schema":10,"a":7,"B":6,"output_content_type":8,"outputs":9,"x_1":4,"x-1":5,"x9":2,"x10":1,"X10":3}"#),
            ("true", "true"), ("null", "null"),
        ]
        for (input, printed) in pinned {
            #expect(Self.flowctl(input) == #"{"p":"# + printed + "}", "\(input)")
            #expect(Self.foundation(input) == #"{"p":"# + printed + "}", "\(input)")
        }
    }

    @Test func refusesWhatJSONSerializationRefused() {
        for input in ["", " ", "01", "-01", "1.", ".5", "-", "1e", "1e+", "+1", "1e400", "[1 2]", "[,]", "{1:2}", "{\"a\"}", "nul", "tru",
                      "\"\\x\"", "\"\\ud83d\"", "\"\\udc00\"", "\"a\tb\"", "\"open", "[1", "{\"a\":1", "[]]", "NaN", "'a'"] {
            #expect(Self.flowctl(input) == nil, "\(input)")
            #expect(Self.foundation(input) == nil, "\(input)")
        }
        #expect(Self.flowctl(String(repeating: "[", count: 512) + String(repeating: "]", count: 512)) != nil)
        #expect(Self.flowctl(String(repeating: "[", count: 513) + String(repeating: "]", count: 513)) == nil)
        #expect((try? UntypedJSON(parsing: Array("[\"".utf8) + [0xC3, 0x28] + Array("\"]".utf8))) == nil)
        #expect((try? UntypedJSON(parsing: Array("1".utf8))) == nil, "a fragment only when allowed")
        #expect((try? UntypedJSON(parsing: [0xEF, 0xBB, 0xBF] + Array("[1]".utf8))) == .array([.number("1")]), "a byte order mark is skipped")
        let utf16 = Array("[\"é\",1]".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect((try? UntypedJSON(parsing: utf16)) == .array([.string("é"), .number("1")]), "UTF-16 is read")
    }

    /// Random documents and random keys of ASCII characters: the same text as JSONSerialization's, or
    /// refused by both.
    @Test func agreesWithJSONSerializationOnRandomInput() {
        var random = SystemRandomNumberGenerator()
        let pieces = ["0", "-1", "1.5", "-0.0", "1e2", "1E-3", "12345678901234567890123", "0.30000000000000004", "01", "1.", "true",
                      "null", "\"a/b\"", "\"\\u00e9\\n\"", "\"\\ud83d\\ude00\"", "\"\\q\"", "[]", "{}", "[1,]", "{\"B\":1,\"a\":[2]}"]
        for _ in 0..<3_000 {
            let parts = (0..<Int.random(in: 1...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }
            for text in ["[" + parts.joined(separator: ",") + "]",
                         "{" + parts.enumerated().map { "\"k\($0.offset)\":\($0.element)" }.joined(separator: ",") + "}"] {
                #expect(Self.flowctl(text) == Self.foundation(text), "\(text)")
            }
            let number = Double.random(in: -1e6...1e6, using: &random) * pow(10, Double(Int.random(in: -20...20, using: &random)))
            #expect(Self.flowctl("\(number)") == Self.foundation("\(number)"), "\(number)")
        }
        let characters = (0x01...0x7E).map { Character(Unicode.Scalar(UInt8($0))) } + Array("aAbB0123456789000")
        for _ in 0..<5_000 {
            var keys: Set<String> = []
            for _ in 0..<Int.random(in: 2...6, using: &random) {
                keys.insert(String((0..<Int.random(in: 1...8, using: &random)).map { _ in characters.randomElement(using: &random)! }))
            }
            let foundation = try? JSONSerialization.data(withJSONObject: Dictionary(uniqueKeysWithValues: keys.map { ($0, 0) }),
                                                         options: [.sortedKeys, .withoutEscapingSlashes])
            let flowctl = UntypedJSON.object(Dictionary(uniqueKeysWithValues: keys.map { ($0, UntypedJSON.number("0")) })).text
            #expect(foundation.map { String(decoding: $0, as: UTF8.self) } == flowctl, "\(keys.sorted())")
        }
    }
}
