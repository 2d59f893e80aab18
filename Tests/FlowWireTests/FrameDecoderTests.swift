import FlowWire
import Testing

/// Feeds `bytes` in the given chunk sizes (the last chunk takes the rest) and drains envelopes after each.
private func decodeAll(_ bytes: [UInt8], chunks: [Int], into decoder: inout FrameDecoder) throws -> [Flowd_V1_Envelope] {
    var out: [Flowd_V1_Envelope] = []
    var offset = 0
    for size in chunks + [bytes.count] where offset < bytes.count {
        let end = min(offset + size, bytes.count)
        decoder.append(Array(bytes[offset..<end]))
        offset = end
        while let envelope = try decoder.nextEnvelope() { out.append(envelope) }
    }
    return out
}

private func header(_ length: UInt32) -> [UInt8] {
    [UInt8(length & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 24)]
}

@Suite struct FrameDecoderTests {
    @Test func everyBodyTypeRoundTrips() throws {
        let envelopes = SampleEnvelopes.all
        #expect(Set(envelopes.map(\.bodyName)).count == 25)
        for envelope in envelopes {
            var decoder = FrameDecoder()
            decoder.append(try FrameEncoder.encode(envelope))
            let decoded = try #require(try decoder.nextEnvelope(), "\(envelope.bodyName)")
            #expect(decoded == envelope, "\(envelope.bodyName)")
            #expect(try decoder.nextEnvelope() == nil)
            #expect(decoder.bufferedByteCount == 0)
            #expect(!decoder.isMidFrame)
        }
    }

    @Test func severalFramesInOneChunk() throws {
        var decoder = FrameDecoder()
        let decoded = try decodeAll(try SampleEnvelopes.stream(), chunks: [], into: &decoder)
        #expect(decoded == SampleEnvelopes.all)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func everySplitPointDecodesTheSameFrames() throws {
        let envelopes = Array(SampleEnvelopes.all.prefix(8))
        let bytes = try SampleEnvelopes.stream(envelopes)
        for split in 0...bytes.count {
            var decoder = FrameDecoder()
            let decoded = try decodeAll(bytes, chunks: [split], into: &decoder)
            #expect(decoded == envelopes, "split at \(split)")
            #expect(!decoder.isMidFrame)
        }
    }

    @Test func byteByByteFeeding() throws {
        let bytes = try SampleEnvelopes.stream()
        var decoder = FrameDecoder()
        var decoded: [Flowd_V1_Envelope] = []
        for (index, byte) in bytes.enumerated() {
            decoder.append([byte])
            if let envelope = try decoder.nextEnvelope() {
                decoded.append(envelope)
                #expect(try decoder.nextEnvelope() == nil, "at byte \(index)")
            }
        }
        #expect(decoded == SampleEnvelopes.all)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func irregularChunksOverManyFramesCompactCorrectly() throws {
        // Many frames through one decoder in deterministic, varying chunk sizes: exercises compaction.
        let envelopes = (0..<40).flatMap { _ in SampleEnvelopes.all }
        let bytes = try SampleEnvelopes.stream(envelopes)
        var sizes: [Int] = []
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var total = 0
        while total < bytes.count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let size = Int(state >> 33) % 700 + 1
            sizes.append(size)
            total += size
        }
        var decoder = FrameDecoder()
        #expect(try decodeAll(bytes, chunks: sizes, into: &decoder) == envelopes)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func keepsWorkingAfterReturningNil() throws {
        let first = SampleEnvelopes.all[3]
        let second = SampleEnvelopes.all[6]
        let bytes = try FrameEncoder.encode(first) + FrameEncoder.encode(second)
        var decoder = FrameDecoder()
        #expect(try decoder.nextEnvelope() == nil)
        decoder.append(Array(bytes.prefix(2)))
        #expect(try decoder.nextEnvelope() == nil)
        #expect(decoder.isMidFrame)
        decoder.append(Array(bytes[2..<bytes.count - 1]))
        #expect(try decoder.nextEnvelope() == first)
        #expect(try decoder.nextEnvelope() == nil)
        #expect(decoder.isMidFrame)
        decoder.append([bytes.last!])
        #expect(try decoder.nextEnvelope() == second)
        #expect(try decoder.nextEnvelope() == nil)
        #expect(!decoder.isMidFrame)
    }

    @Test func oversizeLengthIsRejectedAfterExactlyFourBytes() throws {
        var decoder = FrameDecoder(maxFrameSize: 1000)
        let bad = header(1001)
        for byte in bad.dropLast() {
            decoder.append([byte])
            #expect(try decoder.nextEnvelope() == nil)
        }
        decoder.append([bad.last!])
        #expect(throws: FrameError.frameTooLarge(length: 1001, maxFrameSize: 1000)) { try decoder.nextEnvelope() }
        // Sticky: the body is never buffered and the error repeats.
        decoder.append([UInt8](repeating: 0xAB, count: 500))
        #expect(decoder.bufferedByteCount == 0)
        #expect(throws: FrameError.frameTooLarge(length: 1001, maxFrameSize: 1000)) { try decoder.nextEnvelope() }
    }

    @Test func oversizeBodyInTheSameChunkIsNotBuffered() throws {
        // A good frame, then a header announcing 2 GiB, then 64 KiB of "body" in one chunk.
        let good = try FrameEncoder.encode(SampleEnvelopes.all[0])
        let chunk = good + header(0x8000_0000) + [UInt8](repeating: 7, count: 65536)
        var decoder = FrameDecoder()
        decoder.append(chunk)
        #expect(decoder.bufferedByteCount == good.count + 4)
        #expect(try decoder.nextEnvelope() == SampleEnvelopes.all[0])
        #expect(throws: FrameError.frameTooLarge(length: 0x8000_0000, maxFrameSize: FrameDecoder.defaultMaxFrameSize)) {
            try decoder.nextEnvelope()
        }
        #expect(!decoder.isMidFrame)
    }

    @Test func maxSizeFrameAcceptedAndOneMoreRejected() throws {
        var envelope = Flowd_V1_Envelope(.output(.with { $0.screenID = 1; $0.payload = .json(.init()) }))
        let overhead = try FrameEncoder.encode(envelope).count - 4
        let max = 10_000
        // Fill the payload so that the serialized envelope is exactly `max` bytes.
        var fill = max - overhead
        while true {
            envelope.output.payload.data = .init(repeating: UInt8(ascii: "x"), count: fill)
            let size = try FrameEncoder.encode(envelope, maxFrameSize: .max).count - 4
            if size == max { break }
            fill -= size - max
        }
        let frame = try FrameEncoder.encode(envelope, maxFrameSize: max)
        #expect(frame.count == max + 4)
        var decoder = FrameDecoder(maxFrameSize: max)
        decoder.append(frame)
        #expect(try decoder.nextEnvelope() == envelope)

        var smaller = FrameDecoder(maxFrameSize: max - 1)
        smaller.append(frame)
        #expect(smaller.bufferedByteCount == 4)
        #expect(throws: FrameError.frameTooLarge(length: max, maxFrameSize: max - 1)) { try smaller.nextEnvelope() }
        #expect(throws: FrameError.frameTooLarge(length: max, maxFrameSize: max - 1)) {
            try FrameEncoder.encode(envelope, maxFrameSize: max - 1)
        }
    }

    @Test func garbageIsMalformedAndTheNextFrameStillDecodes() throws {
        // 0xFF... is an invalid varint tag run: not a protobuf message.
        let garbage: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        var decoder = FrameDecoder()
        decoder.append(try header(UInt32(garbage.count)) + garbage + FrameEncoder.encode(SampleEnvelopes.all[3]))
        let error = try #require(throws: FrameError.self) { try decoder.nextEnvelope() }
        guard case .malformed = error else { Issue.record("expected .malformed, got \(error)"); return }
        #expect(error.errorCode == .malformedFrame)
        #expect(try decoder.nextEnvelope() == SampleEnvelopes.all[3])
    }

    @Test func truncatedFieldInsideTheFrameIsMalformed() throws {
        // Field 13 (ping), length-delimited, announcing 5 bytes but the frame holds 1.
        var decoder = FrameDecoder()
        decoder.append(header(3) + [0x6A, 0x05, 0x08])
        #expect(throws: FrameError.self) { try decoder.nextEnvelope() }
    }

    @Test func emptyFrameHasNoBody() throws {
        var decoder = FrameDecoder()
        decoder.append(header(0))
        #expect(throws: FrameError.emptyBody) { try decoder.nextEnvelope() }
        #expect(FrameError.emptyBody.errorCode == .malformedFrame)
        // An envelope with seq set but no body is malformed too.
        var noBody = Flowd_V1_Envelope()
        noBody.seq = 5
        let bytes: [UInt8] = try noBody.serializedBytes()
        decoder.append(header(UInt32(bytes.count)) + bytes)
        #expect(throws: FrameError.emptyBody) { try decoder.nextEnvelope() }
        #expect(try decoder.nextEnvelope() == nil)
    }

    @Test func unknownBodyFieldIsEmptyBody() throws {
        // Field 99, varint 1: a body from a future version this one does not know.
        var decoder = FrameDecoder()
        decoder.append(header(3) + [0x98, 0x06, 0x01])
        #expect(throws: FrameError.emptyBody) { try decoder.nextEnvelope() }
    }

    @Test func loweringTheMaximumAppliesToBufferedFrames() throws {
        let frame = try FrameEncoder.encode(SampleEnvelopes.all[6])
        var decoder = FrameDecoder()
        decoder.append(frame)
        decoder.maxFrameSize = 8
        #expect(throws: FrameError.frameTooLarge(length: frame.count - 4, maxFrameSize: 8)) { try decoder.nextEnvelope() }
    }

    @Test func encoderRefusesAnEnvelopeWithoutBody() {
        #expect(throws: FrameError.emptyBody) { try FrameEncoder.encode(Flowd_V1_Envelope()) }
        var buffer: [UInt8] = [1, 2, 3]
        #expect(throws: FrameError.emptyBody) { try FrameEncoder.append(Flowd_V1_Envelope(), to: &buffer) }
        #expect(buffer == [1, 2, 3])
    }

    @Test func errorsDescribeWhatHappened() {
        let tooLarge = FrameError.frameTooLarge(length: 5_000_000, maxFrameSize: 1_048_576)
        #expect(tooLarge.description.contains("5000000"))
        #expect(tooLarge.description.contains("1048576"))
        #expect(tooLarge.errorCode == .frameTooLarge)
        #expect(tooLarge.wireError.fatal)
        #expect(tooLarge.wireError.code == .frameTooLarge)
        #expect(FrameError.malformed(reason: "truncated").description.contains("truncated"))
        #expect(FrameError.unencodable(reason: "x").errorCode == .internal)
    }
}
