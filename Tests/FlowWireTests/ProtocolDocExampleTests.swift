import FlowWire
import Foundation
import Testing

/// The byte-level examples in docs/protocol.md, kept true by these tests.
@Suite struct ProtocolDocExampleTests {
    static let hello = Flowd_V1_Envelope(
        .hello(.with {
            $0.minVersion = 1
            $0.maxVersion = 1
            $0.role = .screenHost
            $0.name = "demo"
            $0.provides = ["menu"]
        }),
        seq: 1
    )

    static let welcome = Flowd_V1_Envelope(
        .welcome(.with {
            $0.version = 1
            $0.connectionID = 7
            $0.server = "flowd 0.1.0"
            $0.maxFrameSize = 1_048_576
            $0.app = "demo"
        }),
        seq: 1,
        replyTo: 1
    )

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
    }

    /// The Hello frame as printed in docs/protocol.md.
    static let helloHex = "16 00 00 00 08 01 52 12 08 01 10 01 18 01 2a 04 64 65 6d 6f 32 04 6d 65 6e 75"
    /// The Welcome frame as printed in docs/protocol.md.
    static let welcomeHex =
        "21 00 00 00 08 01 10 01 5a 1b 08 01 10 07 1a 0b 66 6c 6f 77 64 20 30 2e 31 2e 30 20 80 80 40 2a 04 64 65 6d 6f"

    static func bytes(_ hex: String) -> [UInt8] {
        hex.split(separator: " ").map { UInt8($0, radix: 16)! }
    }

    @Test func helloFrameBytesMatchTheDocument() throws {
        #expect(Self.hex(try FrameEncoder.encode(Self.hello)) == Self.helloHex)
        var decoder = FrameDecoder()
        decoder.append(Self.bytes(Self.helloHex))
        #expect(try decoder.nextEnvelope() == Self.hello)
    }

    @Test func welcomeFrameBytesMatchTheDocument() throws {
        #expect(Self.hex(try FrameEncoder.encode(Self.welcome)) == Self.welcomeHex)
        var decoder = FrameDecoder()
        decoder.append(Self.bytes(Self.welcomeHex))
        #expect(try decoder.nextEnvelope() == Self.welcome)
    }

    @Test func hexAppearsVerbatimInProtocolDoc() throws {
        // The same hex appears verbatim in docs/protocol.md.
        let doc = try String(contentsOfFile: PackageRoot.path + "/docs/protocol.md", encoding: .utf8)
        #expect(doc.contains(Self.helloHex))
        #expect(doc.contains(Self.welcomeHex))
    }

    @Test func theEnvelopesFieldListNamesEveryBodyOfTheProto() throws {
        // §3 lists the body fields; a client written from the page alone needs every one.
        let proto = try String(contentsOfFile: PackageRoot.path + "/proto/flowd/v1/envelope.proto", encoding: .utf8)
        let oneof = try #require(proto.components(separatedBy: "oneof body {").last?.components(separatedBy: "}").first)
        let fields = oneof.split(separator: "\n").compactMap { line -> (String, String)? in
            let words = line.split(whereSeparator: { $0 == " " || $0 == "=" || $0 == ";" })
            guard words.count == 3, !line.contains("//"), Int(words[2]) != nil else { return nil }
            return (String(words[1]), String(words[2]))
        }
        #expect(fields.count >= 34, "parsed \(fields.count) body fields")
        let doc = try String(contentsOfFile: PackageRoot.path + "/docs/protocol.md", encoding: .utf8)
        let section = try #require(doc.components(separatedBy: "## 3. The envelope").last?.components(separatedBy: "## 4.").first)
        let list = section.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "  ", with: " ")
        for (name, number) in fields {
            #expect(list.contains("`\(name)` \(number)"), "protocol.md §3 does not list `\(name)` \(number)")
        }
    }
}
