import Foundation
import SwiftProtobuf
import Testing

@testable import FlowWire

/// A field added to a message FastCodec codes must not be dropped silently:
/// every field the .proto declares for those messages is in
/// `FastCodec.handledFields`, or a case of a oneof FastCodec declines.
@Suite struct FastCodecFieldTests {
    /// The generated type of every message FastCodec codes, by proto full name.
    static let generatedTypes: [String: any SwiftProtobuf.Message.Type] = Dictionary(
        uniqueKeysWithValues: ([
            Flowd_V1_Envelope.self, Flowd_V1_Ping.self, Flowd_V1_Pong.self, Flowd_V1_Ack.self,
            Flowd_V1_Output.self, Flowd_V1_Payload.self, Flowd_V1_Update.self, Flowd_V1_Dismiss.self,
            Flowd_V1_PlacementChanged.self, Flowd_V1_Place.self, Flowd_V1_Placement.self, Flowd_V1_PathElement.self,
        ] as [any SwiftProtobuf.Message.Type]).map { ($0.protoMessageName, $0) })

    let schema: ProtoSchema

    init() throws {
        schema = try ProtoSchema(directory: PackageRoot.path + "/proto")
    }

    @Test func everyFieldOfACodedMessageIsHandledOrDeclined() {
        for (message, handled) in FastCodec.handledFields.sorted(by: { $0.key < $1.key }) {
            guard let fields = schema.messages[message] else {
                Issue.record("FastCodec.handledFields names \(message), which no .proto in proto/ declares")
                continue
            }
            for field in fields where !handled.contains(field.number) {
                if let oneof = field.oneof, FastCodec.declinedOneofs.contains(oneof) { continue }
                Issue.record(
                    """
                    \(message).\(field.name) = \(field.number) is not in FastCodec.handledFields: FastCodec.append \
                    would drop it. Code it in Sources/FlowWire/FastCodec.swift (encoder, size and, for messages \
                    it decodes, decoder) and list it, or make FastCodec decline \(message).
                    """)
            }
            let declared = Set(fields.map(\.number))
            for number in handled.subtracting(declared).sorted() {
                Issue.record("FastCodec.handledFields lists \(message) field \(number), which the .proto does not declare")
            }
        }
    }

    @Test func messagesInsideHandledFieldsAreListedToo() {
        for (message, handled) in FastCodec.handledFields {
            for field in schema.messages[message] ?? [] where handled.contains(field.number) {
                guard let type = schema.resolve(field.type, in: message), schema.messages[type] != nil else { continue }
                #expect(
                    FastCodec.handledFields[type] != nil,
                    "\(message).\(field.name) is a \(type), whose fields FastCodec.handledFields does not list")
            }
        }
    }

    /// Guards the parser with the generated code: the messages are the
    /// generated ones and swift-protobuf knows every field number parsed.
    @Test func parsedFieldsAreTheGeneratedOnes() throws {
        #expect(Set(Self.generatedTypes.keys) == Set(FastCodec.handledFields.keys))
        #expect(schema.messages["flowd.v1.Envelope"]?.count ?? 0 > 20, "the parser found the Envelope's fields")
        for (message, type) in Self.generatedTypes {
            for field in schema.messages[message] ?? [] {
                let isEnum = schema.resolve(field.type, in: message).map(schema.enums.contains) ?? false
                let wireType = isEnum ? 0 : Self.wireTypes[field.type] ?? 2
                #expect(try Self.isKnown(field.number, wireType: wireType, to: type), "\(message).\(field.name) = \(field.number)")
            }
        }
    }

    /// Wire types of the scalar types; strings, bytes and messages are 2.
    static let wireTypes: [String: UInt64] = [
        "uint64": 0, "uint32": 0, "int64": 0, "int32": 0, "sint64": 0, "sint32": 0, "bool": 0,
        "fixed64": 1, "sfixed64": 1, "double": 1, "fixed32": 5, "sfixed32": 5, "float": 5,
    ]

    /// True if the generated `type` decodes a zero-valued field `number` as a field, not as an unknown field.
    static func isKnown<M: SwiftProtobuf.Message>(_ number: Int, wireType: UInt64, to type: M.Type) throws -> Bool {
        var bytes: [UInt8] = []
        var tag = UInt64(number) << 3 | wireType
        while tag >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: tag) | 0x80)
            tag >>= 7
        }
        bytes.append(UInt8(tag))
        // The value 0 (a varint, 8 or 4 bytes), or a length of 0.
        bytes += [UInt8](repeating: 0, count: wireType == 1 ? 8 : wireType == 5 ? 4 : 1)
        return try M(serializedBytes: bytes).unknownFields.data.isEmpty
    }
}
