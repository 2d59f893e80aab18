import Foundation
import Testing

@testable import FlowWire

/// The daemon reads every output of a connection into one `HostOutput`: what a frame leaves out
/// must not be left over from the frame before.
@Suite struct HostOutputTests {
    static func output(screen: UInt64, key: UInt64 = 0, contentType: String?, data: Data?) -> Flowd_V1_Output {
        var output = Flowd_V1_Output()
        output.screenID = screen
        output.key = key
        if contentType != nil || data != nil {
            var payload = Flowd_V1_Payload()
            if let contentType { payload.contentType = contentType }
            if let data { payload.data = data }
            output.payload = payload
        }
        return output
    }

    @Test func aReusedOutputHoldsEachFrameAlone() throws {
        let outputs = [
            Self.output(screen: 7, key: 99, contentType: "application/json", data: Data("{\"a\":1}".utf8)),
            Self.output(screen: 8, contentType: "application/json", data: Data("{}".utf8)),  // no key
            Self.output(screen: 9, contentType: nil, data: nil),  // no payload
            Self.output(screen: 10, key: 3, contentType: nil, data: Data([1, 2, 3])),  // no content type
            Self.output(screen: 11, contentType: "text/x", data: nil),  // no data
            Self.output(screen: 12, contentType: "", data: Data()),  // a payload present and empty
        ]
        var stream: [UInt8] = []
        for (seq, output) in outputs.enumerated() { try FrameEncoder.append(.output(output), seq: UInt64(seq + 1), to: &stream) }
        var decoder = FrameDecoder()
        decoder.append(stream)
        var reused = HostOutput()
        for (seq, expected) in outputs.enumerated() {
            let frame = try decoder.nextHotFrame(output: &reused)
            guard case .output = frame.body else { Issue.record("frame \(seq + 1) is not an output: \(frame.body)"); continue }
            #expect(frame.seq == UInt64(seq + 1))
            #expect(reused.message == expected, "frame \(seq + 1)")
            #expect(reused.screenID == expected.screenID && reused.key == expected.key)
            #expect(reused.contentType == expected.payload.contentType && reused.data == expected.payload.data)
            #expect(reused.hasPayload == expected.hasPayload)
        }
        #expect(!(try decoder.nextHotFrame(output: &reused)).isFrame)
    }
}
