import DemoApps
import FlowKit
import FlowProtobuf
import Foundation
import SwiftProtobuf
import Testing

/// The card screens' protobuf payloads (proto/flowd/demo/v1/cards.proto) against their Swift values
/// and against JSON: random values from a fixed seed, every field and case, each way.
@Suite struct CardPayloadTests {
    /// A small deterministic generator (SplitMix64), so a failure names a value that comes back.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Text with what JSON and protobuf treat specially: quotes, escapes, control characters, non-ASCII.
    static func text(_ random: inout Seeded) -> String {
        let pieces = ["", "a", "Ann", "\"", "\\", "/", "\n", "\u{01}", "é", "中文", "🙂", " ", "0", "{}", "e\u{301}"]
        return (0..<Int.random(in: 0...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    static func state(_ random: inout Seeded) -> CardState {
        CardState(
            title: text(&random), body: text(&random),
            buttons: (0..<Int.random(in: 0...4, using: &random)).map { _ in text(&random) },
            field: Bool.random(using: &random) ? text(&random) : nil,
            text: Bool.random(using: &random) ? text(&random) : nil)
    }

    static func output(_ random: inout Seeded) -> CardOutput {
        Bool.random(using: &random)
            ? .didPressButton(index: Int(Int32.random(in: Int32.min...Int32.max, using: &random)) / (Bool.random(using: &random) ? 1 : 1 << 20))
            : .didEnterText(text: text(&random))
    }

    @Test func contentTypesNameTheMessages() {
        #expect(CardState.payloadContentType == "application/protobuf; proto=flowd.demo.v1.CardState")
        #expect(CardOutput.payloadContentType == "application/protobuf; proto=flowd.demo.v1.CardOutput")
        #expect(MenuScreen.stateCoder.contentType == CardState.payloadContentType)
        #expect(MenuScreen.outputCoder.contentType == CardOutput.payloadContentType)
    }

    @Test func randomStatesRoundTripThroughBytesAndBothJSONs() throws {
        var random = Seeded(state: 15)
        let codec = JSONPayloadCodec()
        for _ in 0..<2_000 {
            let state = Self.state(&random)
            let bytes = try state.binaryPayload()
            #expect(try CardState(binaryPayload: bytes) == state)
            // The bytes are the generated message's own serialization.
            #expect(try Flowd_Demo_V1_CardState(serializedBytes: bytes) == state.message())
            // Protobuf's JSON mapping, both ways.
            let json = try CardState.json(fromPayload: bytes, with: codec)
            #expect(try CardState(binaryPayload: CardState.payload(fromJSON: json, with: codec)) == state)
            // The Swift type's Codable JSON is read by protobuf's JSON parser as the same message.
            let codable = try codec.encode(state)
            #expect(try CardState(binaryPayload: CardState.payload(fromJSON: codable, with: codec)) == state)
        }
    }

    @Test func randomOutputsRoundTripThroughBytesAndBothJSONs() throws {
        var random = Seeded(state: 16)
        let codec = JSONPayloadCodec()
        for _ in 0..<2_000 {
            let output = Self.output(&random)
            let bytes = try output.binaryPayload()
            #expect(try CardOutput(binaryPayload: bytes) == output)
            let json = try CardOutput.json(fromPayload: bytes, with: codec)
            #expect(try CardOutput(binaryPayload: CardOutput.payload(fromJSON: json, with: codec)) == output)
            let codable = try codec.encode(output)
            #expect(try CardOutput(binaryPayload: CardOutput.payload(fromJSON: codable, with: codec)) == output)
            // And the other way: protobuf's JSON is the Swift type's Codable JSON.
            #expect(try codec.decode(CardOutput.self, from: json) == output)
        }
    }

    @Test func theJSONPeopleSeeIsTheDocumentedOne() throws {
        let codec = JSONPayloadCodec()
        let press = try CardOutput.json(fromPayload: CardOutput.didPressButton(index: 0).binaryPayload(), with: codec)
        #expect(String(decoding: press, as: UTF8.self) == #"{"didPressButton":{"index":0}}"#)
        let text = try CardOutput.json(fromPayload: CardOutput.didEnterText(text: "Ann").binaryPayload(), with: codec)
        #expect(String(decoding: text, as: UTF8.self) == #"{"didEnterText":{"text":"Ann"}}"#)
        let state = try CardState.json(fromPayload: CardState(title: "Hi", buttons: ["Next"], field: "Name").binaryPayload(), with: codec)
        #expect(String(decoding: state, as: UTF8.self) == #"{"title":"Hi","buttons":["Next"],"field":"Name"}"#)
    }

    @Test func valuesTheMessagesCannotHoldAreRefusedWithWhy() throws {
        #expect(throws: ProtobufPayloadError.self) { try CardOutput.didPressButton(index: Int(Int32.max) + 1).binaryPayload() }
        // A CardOutput with no event set: empty bytes.
        #expect(throws: ProtobufPayloadError.self) { try CardOutput(binaryPayload: Data()) }
        #expect(throws: (any Error).self) { try CardOutput(binaryPayload: Data([0xFF, 0xFF])) }
        #expect(throws: (any Error).self) { try CardOutput.payload(fromJSON: Data(#"{"didPressButton":{"index":"x"}}"#.utf8), with: JSONPayloadCodec()) }
        #expect(throws: (any Error).self) { try CardOutput.payload(fromJSON: Data("{}".utf8), with: JSONPayloadCodec()) }
    }
}
