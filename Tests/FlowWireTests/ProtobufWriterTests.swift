import Foundation
import ProtobufWire
import SwiftProtobuf
import Testing

@testable import FlowWire

/// `ProtobufWriter`, which payload types' fast codecs write with: a message written on the stack
/// (up to its room) or into its `Data` (beyond) is swift-protobuf's bytes either way.
@Suite struct ProtobufWriterTests {
    /// A `Payload` (a string and a bytes field) of every size around the stack room, in both writers.
    @Test func aMessageOfAnySizeIsSwiftProtobufsBytes() throws {
        let texts = ["", "a", "application/x-protobuf; type=flowd.demo.v1.CardState", "réessayez — ü", String(repeating: "x", count: 300)]
        for text in texts {
            for count in [0, 1, 14, 15, 180, 190, 200, 240, 250, 260, 1_000] {
                let bytes = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) })
                var expected = Flowd_V1_Payload()
                expected.contentType = text
                expected.data = bytes
                var size = 0
                if !text.isEmpty { size += ProtobufWriter.stringSize(field: 1, text) }
                if !bytes.isEmpty { size += ProtobufWriter.lengthDelimitedSize(field: 2, length: bytes.count) }
                let written = ProtobufWriter.message(size: size) { writer in
                    if !text.isEmpty { writer.stringField(1, text) }
                    if !bytes.isEmpty { bytes.withUnsafeBytes { writer.bytesField(2, $0) } }
                }
                #expect(written == (try expected.serializedData()), "\(text.utf8.count)-byte text, \(count) bytes")
            }
        }
    }
}
