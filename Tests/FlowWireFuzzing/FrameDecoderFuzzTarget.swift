import FlowWire

/// Fuzz target: a byte stream cut into chunks and fed to `FrameDecoder`.
///
/// Input: byte 0 picks the maximum frame size, byte 1 seeds the chunk sizes,
/// the rest is the stream. Checks that decoding the stream in one piece with
/// `nextEnvelope()` (swift-protobuf only) and chunk by chunk with `nextFrame()`
/// (FastCodec first), draining after every chunk, gives the same frames and
/// errors, as many as the length prefixes announce; that `frameTooLarge` is
/// sticky and leaves nothing buffered; and that what stays buffered is the
/// stream's unfinished last frame.
package enum FrameDecoderFuzzTarget {
    /// The maximum frame sizes byte 0 chooses from: tiny ones make the limit matter.
    package static let limits = [0, 1, 2, 7, 16, 100, 4_096, FrameDecoder.defaultMaxFrameSize]

    /// What one call of `nextFrame()` or `nextEnvelope()` gave.
    enum Outcome: Equatable {
        case frame(Frame)
        case error(FrameError)
    }

    /// Runs one input; throws what did not hold.
    package static func run(_ input: UnsafeRawBufferPointer) throws(FuzzViolation) {
        guard input.count >= 2 else { return }
        let limit = limits[Int(input[0]) % limits.count]
        var random = (UInt64(input[1]) &* 0x9E37_79B9_7F4A_7C15) | 1
        let stream = UnsafeRawBufferPointer(rebasing: input[2...])
        let model = Model(stream, limit: limit)

        var whole = FrameDecoder(maxFrameSize: limit)
        whole.append(stream)
        let expected = try drain(&whole) { decoder throws(FrameError) in
            try decoder.nextEnvelope().map { Frame(seq: $0.seq, replyTo: $0.replyTo, body: $0.body) }
        }

        var chunked = FrameDecoder(maxFrameSize: limit)
        var outcomes: [Outcome] = []
        var offset = 0
        while offset < stream.count {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // Mostly a few bytes at a time, sometimes up to 4 KiB.
            let size = 1 + Int((random >> 33) % (random >> 62 == 0 ? 4_096 : 8))
            let end = min(offset + size, stream.count)
            chunked.append(UnsafeRawBufferPointer(rebasing: stream[offset..<end]))
            offset = end
            if case .error(.frameTooLarge) = outcomes.last {
                try expectSticky(&chunked, outcomes.last!)
            } else {
                outcomes += try drain(&chunked) { decoder throws(FrameError) in try decoder.nextFrame() }
            }
        }

        guard outcomes == expected else {
            throw FuzzViolation("chunked nextFrame() gave \(outcomes), whole nextEnvelope() gave \(expected)")
        }
        guard expected.count == model.frames + (model.tooLarge ? 1 : 0) else {
            throw FuzzViolation("\(expected.count) outcomes for \(model.frames) frames (too large: \(model.tooLarge))")
        }
        if model.tooLarge {
            guard case .error(.frameTooLarge)? = expected.last else {
                throw FuzzViolation("a length over \(limit) was not reported: \(expected)")
            }
        }
        for decoder in [whole, chunked] {
            let left = model.tooLarge ? 0 : model.unfinished
            guard decoder.bufferedByteCount == left, decoder.isMidFrame == (left > 0) else {
                throw FuzzViolation("\(decoder.bufferedByteCount) bytes buffered, \(left) expected")
            }
        }
    }

    /// Calls `next` until it gives nil or a sticky error (checked to stay).
    private static func drain(
        _ decoder: inout FrameDecoder,
        _ next: (inout FrameDecoder) throws(FrameError) -> Frame?
    ) throws(FuzzViolation) -> [Outcome] {
        var outcomes: [Outcome] = []
        while true {
            switch Result(catching: { () throws(FrameError) in try next(&decoder) }) {
            case .success(nil):
                return outcomes
            case .success(let frame?):
                guard frame.body != nil else { throw FuzzViolation("a frame without a body was returned: \(frame)") }
                outcomes.append(.frame(frame))
            case .failure(let error):
                outcomes.append(.error(error))
                if case .frameTooLarge = error {
                    try expectSticky(&decoder, .error(error))
                    return outcomes
                }
            }
        }
    }

    /// After `frameTooLarge`, every call throws it again and nothing stays buffered.
    private static func expectSticky(_ decoder: inout FrameDecoder, _ failure: Outcome) throws(FuzzViolation) {
        let again: Outcome? =
            switch Result(catching: { () throws(FrameError) in try decoder.nextFrame() }) {
            case .success(let frame): frame.map { .frame($0) }
            case .failure(let error): .error(error)
            }
        guard again == failure, decoder.bufferedByteCount == 0 else {
            throw FuzzViolation("after \(failure): \(String(describing: again)), \(decoder.bufferedByteCount) bytes buffered")
        }
    }

    /// The framing alone, walked header by header: what the decoder must find.
    struct Model {
        /// Complete frames before the end or the first length over the limit.
        var frames = 0
        /// True if a length prefix is over the limit.
        var tooLarge = false
        /// Bytes of the last, unfinished frame.
        var unfinished = 0

        init(_ stream: UnsafeRawBufferPointer, limit: Int) {
            var index = 0
            while stream.count - index >= 4 {
                let length = Int(stream[index]) | Int(stream[index + 1]) << 8
                    | Int(stream[index + 2]) << 16 | Int(stream[index + 3]) << 24
                if length > limit {
                    tooLarge = true
                    return
                }
                guard stream.count - index - 4 >= length else { break }
                index += 4 + length
                frames += 1
            }
            unfinished = stream.count - index
        }
    }
}
