@testable import DemoApps
import FlowKit
import FlowProtobuf
import Foundation
import PayloadFuzzing
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
            let bytes = state.binaryPayload()
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

    // MARK: The hand-written fast codec (CardScreens+Protobuf.swift) against swift-protobuf

    /// Its fuzz target (docs/fuzzing.md) on seeded inputs of each kind: messages made by
    /// swift-protobuf and then damaged (a byte changed, cut short, unknown fields, a field repeated),
    /// random bytes, and recipes for values.
    @Test func fastCodecMatchesSwiftProtobufBothWays() throws {
        var random = Seeded(state: 28)
        var readFast = 0
        for _ in 0..<3_000 {
            var message: [UInt8] = try Bool.random(using: &random)
                ? Self.output(&random).message().serializedBytes() : Self.state(&random).message().serializedBytes()
            switch Int.random(in: 0..<6, using: &random) {
            case 0 where !message.isEmpty: message[Int.random(in: 0..<message.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            case 1 where !message.isEmpty: message.removeLast(Int.random(in: 1...message.count, using: &random))
            case 2: message += Self.unknownField(&random)
            case 3: message = Self.unknownField(&random) + message
            case 4: message += message
            default: break
            }
            // Each message as both types: the target's modes 0 (CardOutput) and 1 (CardState).
            for mode: UInt8 in [0, 1] {
                try ([mode] + message).withUnsafeBytes { try CardPayloadFuzzTarget.run($0) }
            }
            let fast = message.withUnsafeBytes { bytes in (CardOutput.fastDecoded(bytes) != nil ? 1 : 0) + (CardState.fastDecoded(bytes) != nil ? 1 : 0) }
            readFast += fast
            let noise = (0..<Int.random(in: 0...24, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            for mode: UInt8 in 0..<4 {
                try ([mode] + noise).withUnsafeBytes { try CardPayloadFuzzTarget.run($0) }
            }
        }
        // The fast decoders read most of these themselves (a decoder that declined everything would
        // pass the equality checks alone, swift-protobuf answering for it).
        #expect(readFast > 2_000, "the fast decoders read only \(readFast) of 6,000 messages")
    }

    /// Every input the fuzzer found (FuzzRegressions/CardPayload, docs/fuzzing.md) passes the target.
    @Test func everyFuzzRegressionInputPassesTheTarget() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/FuzzRegressions/CardPayload"
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.sorted()
        #expect(!names.isEmpty)
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
            do {
                try bytes.withUnsafeBytes { try CardPayloadFuzzTarget.run($0) }
            } catch {
                Issue.record("FuzzRegressions/CardPayload/\(name): \(error)")
            }
        }
    }

    /// A field numbered past the messages' fields, of each wire type the fast codec skips.
    static func unknownField(_ random: inout Seeded) -> [UInt8] {
        let number = UInt8.random(in: 6...15, using: &random)
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return [number << 3 | 0, 0x96, 0x01]
        case 1: return [number << 3 | 1] + [UInt8](repeating: 7, count: 8)
        case 2: return [number << 3 | 2, 3, 0x61, 0x62, 0x63]
        default: return [number << 3 | 5, 1, 2, 3, 4]
        }
    }

    /// The usual shapes are read by the fast codec itself (it does not decline them), unknown
    /// fields skipped; what it declines still decodes (or fails) as swift-protobuf says.
    @Test func fastCodecReadsTheUsualShapesAndDeclinesTheRest() throws {
        func fast<T>(_ bytes: [UInt8], _ decode: (UnsafeRawBufferPointer) -> T?) -> T? { bytes.withUnsafeBytes(decode) }
        let state = CardState(title: "Hi", body: "é", buttons: ["A", ""], field: "", text: "🙂")
        let stateBytes: [UInt8] = try state.message().serializedBytes()
        #expect(Array(state.binaryPayload()) == stateBytes)
        #expect(fast(stateBytes, CardState.fastDecoded) == state)
        #expect(fast([0x38, 0x01] + stateBytes + [0x45, 1, 2, 3, 4], CardState.fastDecoded) == state)
        #expect(fast([0x0A, 0x01, 0xFF], CardState.fastDecoded) == nil)  // not UTF-8
        #expect(fast([0x08, 0x01], CardState.fastDecoded) == nil)  // title as a varint
        #expect(fast([0x3B, 0x3C], CardState.fastDecoded) == nil)  // a group
        #expect(try CardState(binaryPayload: Data([0x3B, 0x3C])) == CardState(title: "", buttons: []))

        let press = [0x0A, 0x02, 0x08, 0x02] as [UInt8]
        #expect(Array(try CardOutput.didPressButton(index: 2).binaryPayload()) == press)
        #expect(fast(press, CardOutput.fastDecoded) == .didPressButton(index: 2))
        #expect(fast([0x0A, 0x00], CardOutput.fastDecoded) == .didPressButton(index: 0))
        #expect(fast([0x12, 0x05, 0x0A, 0x03, 0x41, 0x6E, 0x6E, 0x18, 0x01], CardOutput.fastDecoded) == .didEnterText(text: "Ann"))
        let negative = Array(try CardOutput.didPressButton(index: -1).binaryPayload())
        #expect(negative.count == 13 && fast(negative, CardOutput.fastDecoded) == .didPressButton(index: -1))
        // Two events: swift-protobuf replaces the first (or merges a repeat); the fast codec declines.
        let twice = press + [0x12, 0x02, 0x0A, 0x00]
        #expect(fast(twice, CardOutput.fastDecoded) == nil)
        #expect(try CardOutput(binaryPayload: Data(twice)) == .didEnterText(text: ""))
        #expect(try CardOutput(binaryPayload: Data(press + [0x0A, 0x02, 0x10, 0x01])) == .didPressButton(index: 2))
    }
}
