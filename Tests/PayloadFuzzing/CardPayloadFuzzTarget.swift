import DemoApps
import FlowProtobuf
import FlowWireFuzzing
import Foundation
import SwiftProtobuf

/// Fuzz target: the demo cards' hand-written payload codec (`CardState`, `CardOutput`:
/// Sources/DemoApps/Screens/CardScreens+Protobuf.swift) against swift-protobuf's generated code,
/// both ways. The first byte chooses what the rest is:
///
/// - 0, 1: the bytes of a `CardOutput` or `CardState` message (unknown fields, repeats, bad UTF-8
///   and malformed bytes included): `init(binaryPayload:)` gives the same value as swift-protobuf's
///   message and `init(message:)`, or both refuse the bytes.
/// - 2, 3: a recipe for a `CardState` or `CardOutput` value: `binaryPayload()` writes the same bytes
///   as `message().serializedBytes()` (or both throw), and both decoders read the value back.
package enum CardPayloadFuzzTarget {
    /// Runs one input; throws what did not hold.
    package static func run(_ input: UnsafeRawBufferPointer) throws(FuzzViolation) {
        guard let mode = input.first else { return }
        let rest = Data(input.dropFirst())
        switch mode % 4 {
        case 0:
            try same(CardOutput.self, rest) { try CardOutput(message: Flowd_Demo_V1_CardOutput(serializedBytes: $0)) }
        case 1:
            try same(CardState.self, rest) { try CardState(message: Flowd_Demo_V1_CardState(serializedBytes: $0)) }
        case 2:
            var recipe = Recipe(rest)
            let state = CardState(
                title: recipe.text(), body: recipe.text(), buttons: (0..<recipe.byte() % 5).map { _ in recipe.text() },
                field: recipe.byte() % 2 == 0 ? nil : recipe.text(), text: recipe.byte() % 2 == 0 ? nil : recipe.text())
            try sameBytes(state) { try $0.message().serializedBytes() }
        default:
            var recipe = Recipe(rest)
            let output: CardOutput = recipe.byte() % 2 == 0 ? .didPressButton(index: recipe.integer()) : .didEnterText(text: recipe.text())
            try sameBytes(output) { try $0.message().serializedBytes() }
        }
    }

    /// The value both decoders read from `bytes`, or both refuse them.
    static func same<Value: ProtobufPayload & Equatable>(
        _ type: Value.Type, _ bytes: Data, reference: (Data) throws -> Value
    ) throws(FuzzViolation) {
        let fast = Result { try Value(binaryPayload: bytes) }
        let slow = Result { try reference(bytes) }
        switch (fast, slow) {
        // The same value and the same text, scalar for scalar (`String`'s `==` takes "é" for "e\u{301}").
        case (.success(let a), .success(let b)) where a == b && (try? a.message().serializedBytes() as [UInt8]) == (try? b.message().serializedBytes() as [UInt8]):
            return
        case (.failure, .failure): return
        default: throw FuzzViolation("\(Value.self) from \(Array(bytes)): fast codec \(fast), swift-protobuf \(slow)")
        }
    }

    /// The bytes both encoders write for `value` (or both throw), which both decoders read back as `value`.
    static func sameBytes<Value: ProtobufPayload & Equatable>(
        _ value: Value, reference: (Value) throws -> Data
    ) throws(FuzzViolation) {
        let fast = Result { try value.binaryPayload() }
        let slow = Result { try reference(value) }
        switch (fast, slow) {
        case (.success(let a), .success(let b)) where a == b:
            guard (try? Value(binaryPayload: a)) == value, (try? Value(message: Value.Message(serializedBytes: a))) == value else {
                throw FuzzViolation("\(value) encoded as \(Array(a)) does not decode back to itself")
            }
        case (.failure, .failure): return
        default: throw FuzzViolation("\(value): fast codec wrote \(fast.map { Array($0) }), swift-protobuf \(slow.map { Array($0) })")
        }
    }

    /// Reads values from the fuzzer's bytes; zeroes once they run out.
    struct Recipe {
        var bytes: Data.SubSequence

        init(_ bytes: Data) { self.bytes = bytes[...] }

        mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

        /// Any `Int` (most of them do not fit the message's int32: both encoders refuse those).
        mutating func integer() -> Int {
            let width = Int(byte() % 9)
            var value: UInt64 = 0
            for _ in 0..<width { value = value << 8 | UInt64(byte()) }
            // Sign-extends from the bytes read, so small negative indexes come up often.
            let shift = 64 - 8 * max(width, 1)
            return Int(Int64(bitPattern: value << UInt64(shift)) >> Int64(shift))
        }

        /// Up to 31 bytes, read as UTF-8 (an invalid sequence becomes U+FFFD, so every script and
        /// width comes up).
        mutating func text() -> String {
            let count = min(Int(byte() % 32), bytes.count)
            defer { bytes = bytes.dropFirst(count) }
            return String(decoding: bytes.prefix(count), as: UTF8.self)
        }
    }
}
