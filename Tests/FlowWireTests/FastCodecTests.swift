import Foundation
import Testing

@testable import FlowWire

/// The hand-written codec must agree with swift-protobuf byte for byte.
@Suite struct FastCodecTests {
    /// A small deterministic generator so failures reproduce.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 11
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
        mutating func bool() -> Bool { next() & 1 == 1 }
        /// Zero, small, large and maximal values, all of which encode differently.
        mutating func number() -> UInt64 {
            switch next() % 5 {
            case 0: 0
            case 1: UInt64(int(1...127))
            case 2: UInt64(int(128...100_000))
            case 3: next() << 11
            default: UInt64.max
            }
        }
        mutating func text() -> String {
            ["", "application/json", "menu", "ünïcödé ✓", String(repeating: "x", count: int(0...300))][int(0...4)]
        }
        mutating func data() -> Data { Data((0..<int(0...400)).map { _ in UInt8(truncatingIfNeeded: next()) }) }
        /// Known values, 0 and unknown ones (positive and negative).
        mutating func enumValue() -> Int { [0, 1, 2, 3, 5, 99, -1, -2_147_483_648][int(0...7)] }
    }

    private func payload(_ r: inout Random) -> Flowd_V1_Payload {
        var p = Flowd_V1_Payload()
        p.contentType = r.text()
        p.data = r.data()
        return p
    }

    private func placement(_ r: inout Random) -> Flowd_V1_Placement {
        var p = Flowd_V1_Placement()
        for _ in 0..<r.int(0...4) {
            var e = Flowd_V1_PathElement()
            e.kind = Flowd_V1_NodeKind(rawValue: r.enumValue()) ?? .unspecified
            e.id = r.number()
            e.index = UInt32(truncatingIfNeeded: r.number())
            e.presented = r.bool()
            e.tabCount = UInt32(truncatingIfNeeded: r.number())
            p.path.append(e)
        }
        p.visible = r.bool()
        p.topMost = r.bool()
        return p
    }

    private func body(_ r: inout Random) -> Flowd_V1_Envelope.OneOf_Body {
        switch r.int(0...6) {
        case 0:
            var m = Flowd_V1_Pong()
            m.nonce = r.number()
            return .pong(m)
        case 1:
            var m = Flowd_V1_Ping()
            m.nonce = r.number()
            return .ping(m)
        case 2:
            var m = Flowd_V1_Update()
            m.screenID = r.number()
            m.serial = r.number()
            if r.bool() { m.state = payload(&r) }
            return .update(m)
        case 3:
            var m = Flowd_V1_Dismiss()
            m.screenID = r.number()
            m.serial = r.number()
            m.animated = r.bool()
            m.reason = Flowd_V1_Dismiss.Reason(rawValue: r.enumValue()) ?? .unspecified
            return .dismiss(m)
        case 4:
            var m = Flowd_V1_PlacementChanged()
            m.screenID = r.number()
            m.serial = r.number()
            m.change = Flowd_V1_PlacementChanged.Change(rawValue: r.enumValue()) ?? .unspecified
            if r.bool() { m.placement = placement(&r) }
            return .placementChanged(m)
        case 5:
            var m = Flowd_V1_Place()
            m.screenID = r.number()
            m.kind = r.text()
            if r.bool() { m.state = payload(&r) }
            if r.bool() { m.placement = placement(&r) }
            m.serial = r.number()
            m.animated = r.bool()
            m.flowID = r.number()
            m.flowType = r.text()
            return .place(m)
        default:
            var m = Flowd_V1_Ack()
            m.screenID = r.number()
            m.serial = r.number()
            return .ack(m)
        }
    }

    @Test func encodingMatchesSwiftProtobufByteForByte() throws {
        var r = Random(state: 42)
        for _ in 0..<5_000 {
            let body = body(&r)
            let seq = r.number()
            let replyTo = r.number()
            var fast: [UInt8] = [9, 9]  // appends after what is there
            try FrameEncoder.append(body, seq: seq, replyTo: replyTo, to: &fast)
            var reference: [UInt8] = [9, 9]
            try FrameEncoder.append(Flowd_V1_Envelope(body, seq: seq, replyTo: replyTo), to: &reference)
            #expect(fast == reference, "\(body)")
            if fast != reference { return }
        }
    }

    /// The daemon's `Update` written from its fields is the `Update` message's frame, byte for byte.
    @Test func anUpdateWrittenFromItsFieldsMatchesSwiftProtobuf() throws {
        var r = Random(state: 7)
        for _ in 0..<5_000 {
            let (screen, serial, seq, replyTo) = (r.number(), r.number(), r.number(), r.number())
            let contentType = r.text(), state = r.data()
            var fast: [UInt8] = [9]
            try FrameEncoder.appendUpdate(screenID: screen, serial: serial, contentType: contentType, state: state, seq: seq, replyTo: replyTo, to: &fast)
            var update = Flowd_V1_Update()
            update.screenID = screen
            update.serial = serial
            update.state.contentType = contentType
            update.state.data = state
            var reference: [UInt8] = [9]
            try FrameEncoder.append(Flowd_V1_Envelope(.update(update), seq: seq, replyTo: replyTo), to: &reference)
            #expect(fast == reference, "\(update)")
            if fast != reference { return }
        }
        // Over the limit: refused as the message would be, the buffer unchanged.
        var buffer: [UInt8] = [1, 2]
        #expect(throws: FrameError.self) {
            try FrameEncoder.appendUpdate(screenID: 1, serial: 1, contentType: "t", state: Data(count: 100), seq: 1, to: &buffer, maxFrameSize: 50)
        }
        #expect(buffer == [1, 2])
    }

    @Test func decodingMatchesSwiftProtobuf() throws {
        var r = Random(state: 7)
        var decodedFast = 0
        for _ in 0..<5_000 {
            let body: Flowd_V1_Envelope.OneOf_Body
            switch r.int(0...2) {
            case 0:
                var m = Flowd_V1_Ping()
                m.nonce = r.number()
                body = .ping(m)
            case 1:
                var m = Flowd_V1_Ack()
                m.screenID = r.number()
                m.serial = r.number()
                body = .ack(m)
            default:
                var m = Flowd_V1_Output()
                m.screenID = r.number()
                if r.bool() { m.payload = payload(&r) }
                body = .output(m)
            }
            let envelope = Flowd_V1_Envelope(body, seq: r.number(), replyTo: r.number())
            let bytes: [UInt8] = try envelope.serializedBytes()
            let fast = bytes.withUnsafeBytes { FastCodec.decode($0) }
            #expect(fast == Frame(seq: envelope.seq, replyTo: envelope.replyTo, body: envelope.body))
            if fast != nil { decodedFast += 1 }
        }
        #expect(decodedFast == 5_000, "every hot message takes the fast path")
    }

    @Test func unusualInputIsDeclinedAndDecodedLikeSwiftProtobuf() throws {
        var ack = Flowd_V1_Ack()
        ack.screenID = 5
        ack.serial = 2
        let good: [UInt8] = try Flowd_V1_Envelope(.ack(ack), seq: 3).serializedBytes()
        let cases: [(String, [UInt8])] = [
            ("repeated seq", good + [0x08, 0x07]),
            ("unknown field", good + [0xF8, 0x3E, 0x01]),
            ("ack with a wrong wire type", [0x08, 0x01, 0xC0, 0x01, 0x05]),
            ("truncated varint", [0x08, 0xFF]),
            ("truncated submessage", [0x08, 0x01, 0xC2, 0x01, 0x09, 0x08]),
            ("two bodies", good + [0x6A, 0x00]),
            ("a body the fast path does not know", try Flowd_V1_Envelope(.getTree(.init()), seq: 1).serializedBytes()),
            ("payload with invalid UTF-8 content type", [0x08, 0x01, 0xF2, 0x01, 0x06, 0x12, 0x04, 0x0A, 0x02, 0xC3, 0x28]),
            ("no body", [0x08, 0x01]),
        ]
        for (name, bytes) in cases {
            #expect(bytes.withUnsafeBytes { FastCodec.decode($0) } == nil, "\(name) is declined")
            var viaFrame = FrameDecoder()
            var viaEnvelope = FrameDecoder()
            var frame: [UInt8] = []
            FrameHeader.append(length: bytes.count, to: &frame)
            frame += bytes
            viaFrame.append(frame)
            viaEnvelope.append(frame)
            let frameResult = Result { () throws(FrameError) in try viaFrame.nextFrame() }
            let envelopeResult = Result { () throws(FrameError) in try viaEnvelope.nextEnvelope() }
            switch (frameResult, envelopeResult) {
            case (.success(let a), .success(let b)):
                #expect(a == b.map { Frame(seq: $0.seq, replyTo: $0.replyTo, body: $0.body) }, "\(name)")
            case (.failure(let a), .failure(let b)):
                #expect(a == b, "\(name)")
            default:
                Issue.record("\(name): nextFrame gave \(frameResult), nextEnvelope gave \(envelopeResult)")
            }
        }
    }

    @Test func framesSplitAtEveryByteDecodeTheSame() throws {
        var stream: [UInt8] = []
        var r = Random(state: 3)
        var expected: [Frame] = []
        for seq in 1...12 {
            let body = body(&r)
            try FrameEncoder.append(body, seq: UInt64(seq), replyTo: 0, to: &stream)
            expected.append(Frame(seq: UInt64(seq), replyTo: 0, body: body))
        }
        for split in 0...stream.count {
            var decoder = FrameDecoder()
            decoder.append(Array(stream[..<split]))
            var frames: [Frame] = []
            while let frame = try decoder.nextFrame() { frames.append(frame) }
            decoder.append(Array(stream[split...]))
            while let frame = try decoder.nextFrame() { frames.append(frame) }
            #expect(frames == expected, "split at \(split)")
            if frames != expected { return }
        }
    }
}

extension FastCodecTests {
    @Test func appendingManyFramesGrowsTheBufferGeometrically() throws {
        var buffer: [UInt8] = []
        var reallocations = 0
        var capacity = buffer.capacity
        var pong = Flowd_V1_Pong()
        for seq in 1...20_000 {
            pong.nonce = UInt64(seq)
            try FrameEncoder.append(.pong(pong), seq: UInt64(seq), to: &buffer)
            try FrameEncoder.append(Flowd_V1_Envelope(.getTree(.init()), seq: UInt64(seq)), to: &buffer)
            if buffer.capacity != capacity {
                reallocations += 1
                capacity = buffer.capacity
            }
        }
        // Doubling: about log2(bytes) reallocations, not one per frame (it was ~2,800 for 20,000 frames).
        #expect(reallocations < 40, "\(reallocations) reallocations for \(buffer.count) bytes")
    }
}
