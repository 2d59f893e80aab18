import FlowKit
import Foundation
import Testing

/// A screen whose types use every shape the schema probe knows.
enum ProbedScreen: ScreenModule {
    static let kind = "probed"
    enum Mood: String, Codable, CaseIterable { case calm, busy }
    struct Item: Codable, Equatable { var id: Int; var tags: [String]; var price: Double? }
    /// Recursive: the probe must stop.
    final class Node: Codable { var name = ""; var next: Node? }
    struct State: Codable, Equatable {
        var title: String
        var items: [Item]
        var mood: Mood
        var scores: [String: Int]
        var enabled: Bool
        var note: String?
        var link: URL
    }
    enum Output: Codable, Equatable {
        case pressed(index: Int)
        case typed(String)
        case closed
        case chose(Item, mood: Mood)
    }
    static var exampleState: State? {
        State(title: "t", items: [Item(id: 1, tags: ["a"], price: nil)], mood: .busy, scores: ["x": 1], enabled: true, note: nil,
              link: URL(string: "https://example.com")!)
    }
    static var exampleOutputs: [Output] { [.pressed(index: 2), .typed("x"), .closed, .chose(Item(id: 3, tags: [], price: 1.5), mood: .calm)] }
}

@Suite struct ScreenContractTests {
    @Test func probesStructsArraysOptionalsDictionariesAndRawEnums() throws {
        let schema = SchemaProbe.probe(ProbedScreen.State.self).schema
        #expect(schema.json.text == """
            {"properties":{"enabled":{"type":"boolean"},"items":{"items":{"properties":{"id":{"type":"integer"},"price":{"type":["number","null"]},"tags":{"items":{"type":"string"},"type":"array"}},"required":["id","tags"],"type":"object"},"type":"array"},"link":{"type":"string"},"mood":{"enum":["calm","busy"]},"note":{"type":["string","null"]},"scores":{"additionalProperties":{"type":"integer"},"type":"object"},"title":{"type":"string"}},"required":["enabled","items","link","mood","scores","title"],"type":"object"}
            """)
    }

    @Test func aRecursiveTypeEndsAtTheDepthLimit() {
        let result = SchemaProbe.probe(ProbedScreen.Node.self)
        #expect(result.failure == nil)
        #expect(result.schema.json.text.contains(#""next""#))
    }

    /// A subclass whose synthesized coding keys have no "super": its superclass decodes from `superDecoder()`.
    class Base: Codable { var id = 0 }
    final class Derived: Base {
        var extra = ""
        enum CodingKeys: String, CodingKey { case extra }
        required init(from decoder: Decoder) throws {
            extra = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .extra)
            try super.init(from: decoder.container(keyedBy: CodingKeys.self).superDecoder())
        }
    }

    @Test func aSuperDecoderIsProbedUnderSuper() {
        let result = SchemaProbe.probe(Derived.self)
        #expect(result.failure == nil)
        #expect(result.schema.json.text == #"{"properties":{"extra":{"type":"string"},"super":{"properties":{"id":{"type":"integer"}},"required":["id"],"type":"object"}},"required":["extra","super"],"type":"object"}"#)
    }

    @Test func enumCasesComeFromTheExamplesAndAreProbedByName() throws {
        let contract = ScreenContract(ProbedScreen.self)
        #expect(contract.notes.isEmpty)
        #expect(contract.outputs.map(\.name) == ["pressed", "typed", "closed", "chose"])
        let chose = try #require(contract.outputs.last)
        #expect(chose.schema.json.text == """
            {"properties":{"chose":{"properties":{"_0":{"properties":{"id":{"type":"integer"},"price":{"type":["number","null"]},"tags":{"items":{"type":"string"},"type":"array"}},"required":["id","tags"],"type":"object"},"mood":{"enum":["calm","busy"]}},"required":["_0","mood"],"type":"object"}},"required":["chose"],"type":"object"}
            """)
        for output in contract.outputs {
            #expect(output.schema.validate(output.example).isEmpty, "\(output.name)")
            #expect(contract.output.validate(output.example).isEmpty, "\(output.name) against the oneOf")
        }
        #expect(try contract.state.validate(#require(contract.stateExample)).isEmpty)
    }

    @Test func validationNamesThePathOfEachMismatch() throws {
        let contract = ScreenContract(ProbedScreen.self)
        let bad = try JSONValue(parsing: Data(#"{"title":3,"items":[{"id":"x","tags":[]}],"mood":"angry","scores":{},"enabled":true,"link":"l"}"#.utf8))
        #expect(contract.state.validate(bad) == [
            #"$.items.0.id: expected {"type":"integer"}, got "x""#,
            #"$.mood: expected one of ["calm","busy"], got "angry""#,
            #"$.title: expected {"type":"string"}, got 3"#,
        ])
        let twoCases = try JSONValue(parsing: Data(#"{"typed":{"_0":"a"},"closed":{}}"#.utf8))
        #expect(!contract.output.validate(twoCases).isEmpty)
        let unknownCase = try JSONValue(parsing: Data(#"{"opened":{}}"#.utf8))
        #expect(!contract.output.validate(unknownCase).isEmpty)
    }

    @Test func anEnumWithoutExamplesSaysItsCasesAreNotListed() {
        let contract = ScreenContract(PinScreen.self)
        #expect(contract.outputs.isEmpty)
        #expect(contract.notes == ["Output is an enum and the module gives no exampleOutputs, so its cases are not listed"])
    }
}
