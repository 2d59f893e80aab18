import FlowWire
import Foundation
import SwiftProtobuf

/// Fuzz target: the bytes of one envelope (no length prefix) through
/// `FastCodec` and swift-protobuf.
///
/// Checks that when `FastCodec.decode` accepts the bytes, swift-protobuf
/// decodes them to the same frame; and that when swift-protobuf decodes them
/// to an envelope with a body, `FrameEncoder.append(_:seq:replyTo:to:)`
/// (FastCodec for the daemon's hot messages) writes the same bytes as
/// swift-protobuf for that frame, or the same error, and `nextFrame()` reads
/// the frame back from them.
package enum FastCodecFuzzTarget {
    /// Runs one input; throws what did not hold.
    package static func run(_ input: UnsafeRawBufferPointer) throws(FuzzViolation) {
        let fast = FastCodec.decode(input)
        let envelope = try? Flowd_V1_Envelope(serializedBytes: Data(input))
        guard let envelope, let body = envelope.body else {
            if let fast { throw FuzzViolation("FastCodec decoded \(fast), swift-protobuf gave \(String(describing: envelope))") }
            return
        }
        let frame = Frame(seq: envelope.seq, replyTo: envelope.replyTo, body: body)
        if let fast, fast != frame {
            throw FuzzViolation("FastCodec decoded \(fast), swift-protobuf \(frame)")
        }

        var viaFast: [UInt8] = []
        var viaReference: [UInt8] = []
        let fastResult = Result { () throws(FrameError) in
            try FrameEncoder.append(body, seq: envelope.seq, replyTo: envelope.replyTo, to: &viaFast)
        }
        let referenceResult = Result { () throws(FrameError) in
            try FrameEncoder.append(frame.envelope, to: &viaReference)
        }
        switch (fastResult, referenceResult) {
        case (.success, .success):
            guard viaFast == viaReference else {
                throw FuzzViolation("\(frame) encodes as \(viaFast) with FastCodec, \(viaReference) with swift-protobuf")
            }
        case (.failure(let a), .failure(let b)) where a == b:
            return
        default:
            throw FuzzViolation("\(frame): FastCodec path \(fastResult), swift-protobuf \(referenceResult)")
        }

        var decoder = FrameDecoder()
        decoder.append(viaFast)
        let again = Result { () throws(FrameError) in try decoder.nextFrame() }
        guard case .success(frame?) = again, decoder.bufferedByteCount == 0 else {
            throw FuzzViolation("\(frame) encoded as \(viaFast) decodes as \(again)")
        }
    }
}
