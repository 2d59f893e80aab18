import Foundation

/// A decoded frame as the daemon's read loop takes it: the bodies hosts send most (outputs, acks,
/// pings) as themselves, any other in a `Frame` on the heap; an output is written into the caller's
/// own `HostOutput` (`FrameDecoder.nextHotFrame(output:)`), not carried in the frame. A `Frame` is 225 bytes (the body enum
/// is as large as its largest case, a `Tree`), and each move of one is a `memcpy`: about 0.7 k
/// instructions per output on the daemon's read path (callgrind), where a `HotFrame` is 96 bytes.
package struct HotFrame {
    /// The sender's frame number.
    package var seq: UInt64
    /// The frame this one answers, or 0.
    package var replyTo: UInt64
    /// The message.
    package var body: Body

    /// A hot frame's message.
    package enum Body {
        /// An output, written into the `output` the decoder was handed. Carried in the frame, it was
        /// copied whole to be bound out of the frame the read loop holds, and the frame destroyed
        /// twice (~0.5 k instructions per output, callgrind `flowd-echo`).
        case output
        /// An `Ack`'s two numbers, and a `Ping`'s nonce: plain values, not swift-protobuf's messages
        /// (each with its unknown fields), so that the read loop's copies and destruction of the frame
        /// retain and release nothing (~0.15 k instructions per relay output, callgrind).
        case ack(screenID: UInt64, serial: UInt64)
        case ping(nonce: UInt64)
        /// Any other message (boxed: it would make every `Body` as large as a `Frame`).
        indirect case other(Flowd_V1_Envelope.OneOf_Body)
        /// No frame: none is complete yet. A case rather than an optional frame: Swift destroys an
        /// optional of a struct like this one through the runtime's generic value witness (~140
        /// instructions, callgrind), and the read loop gets one or two per output.
        case noFrame
    }

    /// What `FrameDecoder.nextHotFrame` returns while no frame is complete.
    package static var noFrame: HotFrame { HotFrame(seq: 0, replyTo: 0, body: .noFrame) }

    /// Whether this is a frame, not `noFrame`.
    package var isFrame: Bool {
        if case .noFrame = body { return false }
        return true
    }

    package init(seq: UInt64, replyTo: UInt64, body: Body) {
        self.seq = seq
        self.replyTo = replyTo
        self.body = body
    }

    /// The message as the envelope's body enum (a copy into the large enum: for the cold paths), with
    /// `output`, the one the decoder wrote, for an output.
    package func envelopeBody(output: HostOutput) -> Flowd_V1_Envelope.OneOf_Body {
        switch body {
        case .output: .output(output.message)
        case .ack(let screenID, let serial):
            .ack(Flowd_V1_Ack.with { $0.screenID = screenID; $0.serial = serial })
        case .ping(let nonce): .ping(Flowd_V1_Ping.with { $0.nonce = nonce })
        case .other(let body): body
        case .noFrame: preconditionFailure("HotFrame.noFrame has no body; check isFrame first")
        }
    }

    /// The same frame as a `Frame` (`output`: as for `envelopeBody`).
    package func frame(output: HostOutput) -> Frame { Frame(seq: seq, replyTo: replyTo, body: envelopeBody(output: output)) }
}
