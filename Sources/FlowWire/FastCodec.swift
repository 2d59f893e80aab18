import Foundation
import ProtobufWire

/// Hand-written protobuf coding for the few messages on the daemon's hot path
/// (`Ping`, `Ack` and `Output` in; `Pong`, `Place`, `Update`,
/// `PlacementChanged` and `Dismiss` out), producing and accepting exactly what
/// swift-protobuf does for them. It skips the `Envelope`'s heap storage and
/// the generic visitor machinery, which cost ~6,000 instructions per frame
/// each way (docs/performance.md). Anything unusual — another body, an
/// unknown or repeated field, a wire type that does not fit — is declined
/// (nil / false) and swift-protobuf handles it, errors included.
/// `Tests/FlowWireTests/FastCodecTests` checks both against each other.
package enum FastCodec {
    // MARK: Fields

    /// The field numbers this codec reads or writes, per message (proto full
    /// name). A field of one of these messages that is not listed here would
    /// be dropped when encoding, so `FastCodecFieldTests` fails until the new
    /// field is either coded here and listed, or the message is declined.
    /// Cases of `Envelope.body` not listed are declined (see `declinedOneofs`).
    package static let handledFields: [String: Set<Int>] = [
        "flowd.v1.Envelope": [1, 2, 13, 14, 20, 21, 22, 23, 24, 30],
        "flowd.v1.Ping": [1],
        "flowd.v1.Pong": [1],
        "flowd.v1.Ack": [1, 2],
        "flowd.v1.Output": [1, 2, 3],
        "flowd.v1.Payload": [1, 2],
        "flowd.v1.Update": [1, 2, 3],
        "flowd.v1.Dismiss": [1, 2, 3, 4],
        "flowd.v1.PlacementChanged": [1, 2, 3, 4],
        "flowd.v1.Place": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        "flowd.v1.Placement": [1, 2, 3],
        "flowd.v1.PathElement": [1, 2, 3, 4, 5, 6, 7],
    ]

    /// Oneofs (`message.oneof`) whose unlisted cases are declined, not dropped:
    /// `decode` returns nil and `append` false for any other body.
    package static let declinedOneofs: Set<String> = ["flowd.v1.Envelope.body"]

    // MARK: Decoding

    /// The last payload content type a connection sent, kept so that the next output with the same
    /// bytes reuses its `String` instead of validating and allocating one (a host sends one or two
    /// content types all its life).
    package struct ContentTypes {
        var last = ""
        /// `last`'s bytes, compared from an array: through the string's UTF-8 view the comparison
        /// cost ~0.1 k instructions per output (callgrind, flowd-echo).
        private var lastBytes: [UInt8] = []

        /// A cache that knows nothing yet.
        package init() {}

        /// The string of `bytes` (nil if they are not UTF-8).
        mutating func string(_ bytes: UnsafeRawBufferPointer) -> String? {
            // memcmp: `elementsEqual` went byte by byte through generic iterators, 1.5 k instructions
            // for a 50-byte content type on every output (callgrind, flowd-relay).
            guard !bytes.isEmpty else { return "" }
            let same = lastBytes.count == bytes.count
                && lastBytes.withUnsafeBytes { stored in
                    guard let a = stored.baseAddress, let b = bytes.baseAddress else { return false }
                    return memcmp(a, b, bytes.count) == 0
                }
            if same { return last }
            guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
            last = text
            lastBytes = Array(bytes)
            return text
        }

        /// Takes `known` as the last content type: outputs in it then decode to that very string, which
        /// the daemon compares with the one it was given by identity, not byte by byte (`==` on two
        /// strings of the same storage; ~0.1 k instructions per output, callgrind).
        /// A host's screens mostly share one type: its bytes are copied only when they change.
        mutating func expect(_ known: String) {
            if known != last { lastBytes = Array(known.utf8) }
            last = known
        }
    }

    /// Decodes an envelope body holding `Ping`, `Ack` or `Output`; nil to decline.
    package static func decode(_ bytes: UnsafeRawBufferPointer) -> Frame? {
        var contentTypes = ContentTypes()
        return decode(bytes, contentTypes: &contentTypes)
    }

    /// The same, reusing `contentTypes` across calls (one per connection).
    package static func decode(_ bytes: UnsafeRawBufferPointer, contentTypes: inout ContentTypes) -> Frame? {
        var output = HostOutput()
        return decodeHot(bytes, contentTypes: &contentTypes, output: &output)?.frame(output: output)
    }

    /// The same as a `HotFrame`: an output (written into `output`) or an ack without the body enum.
    package static func decodeHot(_ bytes: UnsafeRawBufferPointer, contentTypes: inout ContentTypes,
                                  output: inout HostOutput) -> HotFrame? {
        var reader = Reader(bytes)
        var seq: UInt64 = 0
        var replyTo: UInt64 = 0
        var body: HotFrame.Body?
        var seen: UInt64 = 0
        while !reader.isAtEnd {
            guard let (field, wire) = reader.tag(), field < 64 else { return nil }
            guard seen & (1 << field) == 0 else { return nil }  // repeated field: swift-protobuf merges
            seen |= 1 << field
            switch (field, wire) {
            case (1, 0): guard let v = reader.varint() else { return nil }; seq = v
            case (2, 0): guard let v = reader.varint() else { return nil }; replyTo = v
            case (13, 2):
                guard body == nil, var sub = reader.submessage(), let ping = decodePing(&sub) else { return nil }
                body = .ping(nonce: ping.nonce)
            case (24, 2):
                guard body == nil, var sub = reader.submessage(), let ack = decodeAck(&sub) else { return nil }
                body = .ack(screenID: ack.screenID, serial: ack.serial)
            case (30, 2):
                guard body == nil, var sub = reader.submessage(), decodeOutput(&sub, &contentTypes, into: &output) else { return nil }
                body = .output
            default:
                return nil
            }
        }
        guard let body else { return nil }
        return HotFrame(seq: seq, replyTo: replyTo, body: body)
    }

    private static func decodePing(_ reader: inout Reader) -> Flowd_V1_Ping? {
        var ping = Flowd_V1_Ping()
        var seen: UInt64 = 0
        while !reader.isAtEnd {
            guard let (field, wire) = reader.tag(), field < 64, seen & (1 << field) == 0 else { return nil }
            seen |= 1 << field
            guard field == 1, wire == 0, let v = reader.varint() else { return nil }
            ping.nonce = v
        }
        return ping
    }

    private static func decodeAck(_ reader: inout Reader) -> Flowd_V1_Ack? {
        var ack = Flowd_V1_Ack()
        var seen: UInt64 = 0
        while !reader.isAtEnd {
            guard let (field, wire) = reader.tag(), field < 64, seen & (1 << field) == 0, wire == 0, let v = reader.varint() else { return nil }
            seen |= 1 << field
            switch field {
            case 1: ack.screenID = v
            case 2: ack.serial = v
            default: return nil
            }
        }
        return ack
    }

    /// Reads an `Output` into `output` (every field of it: what the message leaves out is reset);
    /// false to decline, `output` then partly written.
    private static func decodeOutput(_ reader: inout Reader, _ contentTypes: inout ContentTypes, into output: inout HostOutput) -> Bool {
        var seen: UInt64 = 0
        var screenID: UInt64 = 0, key: UInt64 = 0
        while !reader.isAtEnd {
            guard let (field, wire) = reader.tag(), field < 64, seen & (1 << field) == 0 else { return false }
            seen |= 1 << field
            switch (field, wire) {
            case (1, 0):
                guard let v = reader.varint() else { return false }
                screenID = v
            case (2, 2):
                guard var sub = reader.submessage(), decodePayload(&sub, &contentTypes, into: &output) else { return false }
            case (3, 0):
                guard let v = reader.varint() else { return false }
                key = v
            default:
                return false
            }
        }
        output.screenID = screenID
        output.key = key
        output.hasPayload = seen & (1 << 2) != 0
        if !output.hasPayload {
            output.contentType = ""
            output.data = Data()
        }
        return true
    }

    /// Reads a `Payload` into `output`'s content type and data (what it leaves out is reset).
    private static func decodePayload(_ reader: inout Reader, _ contentTypes: inout ContentTypes, into output: inout HostOutput) -> Bool {
        var seen: UInt64 = 0
        while !reader.isAtEnd {
            guard let (field, wire) = reader.tag(), field < 64, seen & (1 << field) == 0, wire == 2, let bytes = reader.lengthDelimited() else { return false }
            seen |= 1 << field
            switch field {
            case 1:
                guard let text = contentTypes.string(bytes) else { return false }
                output.contentType = text
            case 2:
                // From the base address: `Data(bytes)` went through a generic initializer.
                output.data = bytes.isEmpty ? Data() : Data(bytes: bytes.baseAddress!, count: bytes.count)
            default:
                return false
            }
        }
        if seen & (1 << 1) == 0 { output.contentType = "" }
        if seen & (1 << 2) == 0 { output.data = Data() }
        return true
    }

    /// A cursor over protobuf bytes; every read checks bounds.
    typealias Reader = ProtobufReader

    // MARK: Encoding

    /// Appends a whole frame (header and envelope) for the hot bodies; false
    /// (and `buffer` untouched) to decline.
    static func append(_ body: Flowd_V1_Envelope.OneOf_Body, seq: UInt64, replyTo: UInt64, to buffer: inout [UInt8], maxFrameSize: Int) -> Bool {
        let bodySize: Int
        let field: UInt64
        // An Update's state, read once: each read of a field of swift-protobuf's heap-stored
        // message copies it (retains and releases), ~1 k instructions per Update when read six times.
        var updateState: Flowd_V1_Payload?
        switch body {
        case .pong(let m):
            guard m.unknownFields.data.isEmpty else { return false }
            (field, bodySize) = (14, size(m))
        case .ping(let m):
            guard m.unknownFields.data.isEmpty else { return false }
            (field, bodySize) = (13, size(m))
        case .update(let m):
            updateState = m.hasState ? m.state : nil
            guard m.unknownFields.data.isEmpty, updateState?.unknownFields.data.isEmpty ?? true else { return false }
            (field, bodySize) = (21, updateSize(m.screenID, m.serial, updateState))
        case .dismiss(let m):
            guard m.unknownFields.data.isEmpty else { return false }
            (field, bodySize) = (23, size(m))
        case .placementChanged(let m):
            guard m.unknownFields.data.isEmpty, isPlain(m.placement) else { return false }
            (field, bodySize) = (22, size(m))
        case .place(let m):
            guard m.unknownFields.data.isEmpty, m.state.unknownFields.data.isEmpty, isPlain(m.placement) else { return false }
            (field, bodySize) = (20, size(m))
        case .ack(let m):
            guard m.unknownFields.data.isEmpty else { return false }
            (field, bodySize) = (24, size(m))
        default:
            return false
        }
        // swift-protobuf's path reports a frame over the limit.
        guard var writer = beginFrame(seq: seq, replyTo: replyTo, field: field, bodySize: bodySize, taking: &buffer, maxFrameSize: maxFrameSize)
        else { return false }
        switch body {
        case .pong(let m): writer.field(1, m.nonce)
        case .ping(let m): writer.field(1, m.nonce)
        case .update(let m): writeUpdate(m.screenID, m.serial, updateState, &writer)
        case .dismiss(let m): write(m, &writer)
        case .placementChanged(let m): write(m, &writer)
        case .place(let m): write(m, &writer)
        case .ack(let m):
            writer.field(1, m.screenID)
            writer.field(2, m.serial)
        default: preconditionFailure("declined above")
        }
        buffer = writer.buffer
        return true
    }

    /// Appends a whole `Update` frame from its fields (the state always present, as the daemon sends
    /// it); false (and `buffer` untouched) when it would be over `maxFrameSize`.
    ///
    /// The frame's size is known before a byte is written: it is written through a pointer into
    /// room on the stack and appended with one copy (the state's bytes with a second when the frame
    /// is larger than that room). Byte by byte, each `append` checked the array's uniqueness and
    /// capacity again (~20 of them per frame: ~1.0 k instructions per output with the three
    /// `append(contentsOf:)`, callgrind `flowd-echo`).
    static func appendUpdate(screenID: UInt64, serial: UInt64, contentType: String, state: Data,
                             seq: UInt64, replyTo: UInt64, to buffer: inout [UInt8], maxFrameSize: Int) -> Bool {
        let typeCount = contentType.utf8.count
        let stateCount = state.count
        let stateSize = bytesFieldSize(1, typeCount) + bytesFieldSize(2, stateCount)
        let bodySize = fieldSize(1, screenID) + fieldSize(2, serial) + messageFieldSize(3, stateSize)
        let envelopeSize = fieldSize(1, seq) + fieldSize(2, replyTo) + tagSize(21) + varintSize(UInt64(bodySize)) + bodySize
        // swift-protobuf's path reports a frame over the limit.
        guard envelopeSize <= maxFrameSize else { return false }
        let frameSize = FrameHeader.size + envelopeSize
        // All but the state's bytes: the header, the numbers, the content type, the state's tag and length.
        guard frameSize - stateCount <= updateRoom else {
            appendUpdateInPieces(screenID: screenID, serial: serial, contentType: contentType, state: state,
                                 seq: seq, replyTo: replyTo, envelopeSize: envelopeSize, to: &buffer)
            return true
        }
        buffer.reserveForAppending(frameSize)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: updateRoom) { room in
            var w = SpanWriter(room, at: 0)
            w.headerLength(UInt32(envelopeSize))
            w.field(1, seq)
            w.field(2, replyTo)
            w.messageHeader(21, bodySize)
            w.field(1, screenID)
            w.field(2, serial)
            w.messageHeader(3, stateSize)
            if typeCount > 0 {
                w.messageHeader(1, typeCount)
                w.utf8(contentType)
            }
            if stateCount > 0 { w.messageHeader(2, stateCount) }
            if frameSize <= updateRoom {
                if stateCount > 0 { state.withUnsafeBytes { w.bytes($0) } }
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: room[..<w.position]))
            } else {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: room[..<w.position]))
                state.withUnsafeBytes { buffer.append(contentsOf: $0) }
            }
        }
        return true
    }

    /// The stack room `appendUpdate` writes a frame in: the frame whole when it fits, else all but its state.
    private static var updateRoom: Int { 256 }

    /// `appendUpdate` for a content type too long for its room: field by field.
    @inline(never)
    private static func appendUpdateInPieces(screenID: UInt64, serial: UInt64, contentType: String, state: Data,
                                             seq: UInt64, replyTo: UInt64, envelopeSize: Int, to buffer: inout [UInt8]) {
        let stateSize = bytesFieldSize(1, contentType.utf8.count) + bytesFieldSize(2, state.count)
        let bodySize = fieldSize(1, screenID) + fieldSize(2, serial) + messageFieldSize(3, stateSize)
        buffer.reserveForAppending(FrameHeader.size + envelopeSize)
        FrameHeader.append(length: envelopeSize, to: &buffer)
        var writer = Writer(buffer: buffer)
        buffer = []  // hand the storage over without a copy
        writer.field(1, seq)
        writer.field(2, replyTo)
        writer.messageHeader(21, bodySize)
        writer.field(1, screenID)
        writer.field(2, serial)
        writer.messageHeader(3, stateSize)
        writer.bytesField(1, contentType)
        writer.bytesField(2, state)
        buffer = writer.buffer
    }

    /// The frame header and the envelope up to its body's bytes (`seq`, `replyTo`, the body's tag
    /// and length), in a writer that took `buffer`'s storage (hand it back with `buffer = writer.buffer`);
    /// nil, `buffer` untouched, when the frame would be over `maxFrameSize`.
    private static func beginFrame(seq: UInt64, replyTo: UInt64, field: UInt64, bodySize: Int,
                                   taking buffer: inout [UInt8], maxFrameSize: Int) -> Writer? {
        let envelopeSize = fieldSize(1, seq) + fieldSize(2, replyTo) + tagSize(field) + varintSize(UInt64(bodySize)) + bodySize
        guard envelopeSize <= maxFrameSize else { return nil }
        buffer.reserveForAppending(FrameHeader.size + envelopeSize)
        FrameHeader.append(length: envelopeSize, to: &buffer)
        var writer = Writer(buffer: buffer)
        buffer = []  // hand the storage over without a copy
        writer.field(1, seq)
        writer.field(2, replyTo)
        writer.messageHeader(field, bodySize)
        return writer
    }

    private static func isPlain(_ placement: Flowd_V1_Placement) -> Bool {
        placement.unknownFields.data.isEmpty && placement.path.allSatisfy { $0.unknownFields.data.isEmpty }
    }

    // Sizes of message bodies (without their own tag and length).

    private static func size(_ m: Flowd_V1_Pong) -> Int { fieldSize(1, m.nonce) }
    private static func size(_ m: Flowd_V1_Ping) -> Int { fieldSize(1, m.nonce) }
    private static func size(_ m: Flowd_V1_Ack) -> Int { fieldSize(1, m.screenID) + fieldSize(2, m.serial) }

    private static func size(_ m: Flowd_V1_Payload) -> Int {
        bytesFieldSize(1, m.contentType.utf8.count) + bytesFieldSize(2, m.data.count)
    }

    private static func updateSize(_ screenID: UInt64, _ serial: UInt64, _ state: Flowd_V1_Payload?) -> Int {
        fieldSize(1, screenID) + fieldSize(2, serial) + (state.map { messageFieldSize(3, size($0)) } ?? 0)
    }

    private static func size(_ m: Flowd_V1_Dismiss) -> Int {
        fieldSize(1, m.screenID) + fieldSize(2, m.serial) + boolFieldSize(3, m.animated) + enumFieldSize(4, m.reason.rawValue)
    }

    private static func size(_ m: Flowd_V1_PathElement) -> Int {
        enumFieldSize(1, m.kind.rawValue) + fieldSize(2, m.id) + fieldSize(3, UInt64(m.index))
            + boolFieldSize(4, m.presented) + fieldSize(5, UInt64(m.tabCount)) + fieldSize(6, m.presenterID)
            + bytesFieldSize(7, m.display.utf8.count)
    }

    private static func size(_ m: Flowd_V1_Placement) -> Int {
        var total = 0
        for element in m.path { total += messageFieldSize(1, size(element)) }
        return total + boolFieldSize(2, m.visible) + boolFieldSize(3, m.topMost)
    }

    private static func size(_ m: Flowd_V1_PlacementChanged) -> Int {
        fieldSize(1, m.screenID) + fieldSize(2, m.serial) + enumFieldSize(3, m.change.rawValue)
            + (m.hasPlacement ? messageFieldSize(4, size(m.placement)) : 0)
    }

    private static func size(_ m: Flowd_V1_Place) -> Int {
        fieldSize(1, m.screenID) + bytesFieldSize(2, m.kind.utf8.count)
            + (m.hasState ? messageFieldSize(3, size(m.state)) : 0)
            + (m.hasPlacement ? messageFieldSize(4, size(m.placement)) : 0)
            + fieldSize(5, m.serial) + boolFieldSize(6, m.animated) + fieldSize(7, m.flowID)
            + bytesFieldSize(8, m.flowType.utf8.count) + bytesFieldSize(9, m.savedState.count)
            + bytesFieldSize(10, m.displayToken.utf8.count)
    }

    // Writers, fields in number order and defaults left out, as swift-protobuf does.

    private static func write(_ m: Flowd_V1_Payload, _ w: inout Writer) {
        w.bytesField(1, m.contentType)
        w.bytesField(2, m.data)
    }

    private static func writeUpdate(_ screenID: UInt64, _ serial: UInt64, _ state: Flowd_V1_Payload?, _ w: inout Writer) {
        w.field(1, screenID)
        w.field(2, serial)
        if let state {
            w.messageHeader(3, size(state))
            write(state, &w)
        }
    }

    private static func write(_ m: Flowd_V1_Dismiss, _ w: inout Writer) {
        w.field(1, m.screenID)
        w.field(2, m.serial)
        w.boolField(3, m.animated)
        w.enumField(4, m.reason.rawValue)
    }

    private static func write(_ m: Flowd_V1_Placement, _ w: inout Writer) {
        for element in m.path {
            w.messageHeader(1, size(element))
            w.enumField(1, element.kind.rawValue)
            w.field(2, element.id)
            w.field(3, UInt64(element.index))
            w.boolField(4, element.presented)
            w.field(5, UInt64(element.tabCount))
            w.field(6, element.presenterID)
            w.bytesField(7, element.display)
        }
        w.boolField(2, m.visible)
        w.boolField(3, m.topMost)
    }

    private static func write(_ m: Flowd_V1_PlacementChanged, _ w: inout Writer) {
        w.field(1, m.screenID)
        w.field(2, m.serial)
        w.enumField(3, m.change.rawValue)
        if m.hasPlacement {
            w.messageHeader(4, size(m.placement))
            write(m.placement, &w)
        }
    }

    private static func write(_ m: Flowd_V1_Place, _ w: inout Writer) {
        w.field(1, m.screenID)
        w.bytesField(2, m.kind)
        if m.hasState {
            w.messageHeader(3, size(m.state))
            write(m.state, &w)
        }
        if m.hasPlacement {
            w.messageHeader(4, size(m.placement))
            write(m.placement, &w)
        }
        w.field(5, m.serial)
        w.boolField(6, m.animated)
        w.field(7, m.flowID)
        w.bytesField(8, m.flowType)
        w.bytesField(9, m.savedState)
        w.bytesField(10, m.displayToken)
    }

    // Wire sizes.

    @inline(__always) static func varintSize(_ value: UInt64) -> Int {
        value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
    }

    @inline(__always) static func tagSize(_ field: UInt64) -> Int { varintSize(field << 3) }

    @inline(__always) static func fieldSize(_ field: UInt64, _ value: UInt64) -> Int {
        value == 0 ? 0 : tagSize(field) + varintSize(value)
    }

    @inline(__always) static func boolFieldSize(_ field: UInt64, _ value: Bool) -> Int { value ? tagSize(field) + 1 : 0 }

    /// Enums are int32: negative values take 10 bytes (sign-extended), as in swift-protobuf.
    @inline(__always) static func enumFieldSize(_ field: UInt64, _ value: Int) -> Int {
        value == 0 ? 0 : tagSize(field) + varintSize(UInt64(bitPattern: Int64(Int32(truncatingIfNeeded: value))))
    }

    @inline(__always) static func bytesFieldSize(_ field: UInt64, _ count: Int) -> Int {
        count == 0 ? 0 : tagSize(field) + varintSize(UInt64(count)) + count
    }

    @inline(__always) static func messageFieldSize(_ field: UInt64, _ size: Int) -> Int {
        tagSize(field) + varintSize(UInt64(size)) + size
    }

    /// Writes protobuf encodings into room already made (`appendUpdate`): every write is counted
    /// beforehand; the buffer pointer's own checks catch a miscount in debug builds, `bytes` in all.
    struct SpanWriter {
        let out: UnsafeMutableBufferPointer<UInt8>
        private(set) var position: Int

        @inline(__always) init(_ out: UnsafeMutableBufferPointer<UInt8>, at position: Int) {
            self.out = out
            self.position = position
        }

        /// A frame header: `length` as 4 bytes, little-endian.
        @inline(__always) mutating func headerLength(_ length: UInt32) {
            out[position] = UInt8(truncatingIfNeeded: length)
            out[position + 1] = UInt8(truncatingIfNeeded: length >> 8)
            out[position + 2] = UInt8(truncatingIfNeeded: length >> 16)
            out[position + 3] = UInt8(truncatingIfNeeded: length >> 24)
            position += 4
        }

        @inline(__always) mutating func varint(_ value: UInt64) {
            var v = value
            while v >= 0x80 {
                out[position] = UInt8(truncatingIfNeeded: v) | 0x80
                position += 1
                v >>= 7
            }
            out[position] = UInt8(v)
            position += 1
        }

        @inline(__always) mutating func field(_ field: UInt64, _ value: UInt64) {
            guard value != 0 else { return }
            varint(field << 3)
            varint(value)
        }

        @inline(__always) mutating func messageHeader(_ field: UInt64, _ size: Int) {
            varint(field << 3 | 2)
            varint(UInt64(size))
        }

        /// A string's UTF-8 bytes (in place when the string is native, as nearly all are).
        @inline(__always) mutating func utf8(_ text: String) {
            if text.utf8.withContiguousStorageIfAvailable({ bytes(UnsafeRawBufferPointer($0)) }) == nil {
                var copy = text
                copy.withUTF8 { bytes(UnsafeRawBufferPointer($0)) }
            }
        }

        @inline(__always) mutating func bytes(_ bytes: UnsafeRawBufferPointer) {
            precondition(bytes.count <= out.count - position, "FastCodec.SpanWriter: past the room made")
            guard let source = bytes.baseAddress, let base = out.baseAddress else { return }
            UnsafeMutableRawPointer(base + position).copyMemory(from: source, byteCount: bytes.count)
            position += bytes.count
        }
    }

    /// Appends protobuf encodings to a byte array.
    struct Writer {
        var buffer: [UInt8]

        @inline(__always) mutating func varint(_ value: UInt64) {
            var v = value
            while v >= 0x80 {
                buffer.append(UInt8(truncatingIfNeeded: v) | 0x80)
                v >>= 7
            }
            buffer.append(UInt8(v))
        }

        @inline(__always) mutating func tag(_ field: UInt64, _ wire: UInt64) { varint(field << 3 | wire) }

        @inline(__always) mutating func field(_ field: UInt64, _ value: UInt64) {
            guard value != 0 else { return }
            tag(field, 0)
            varint(value)
        }

        @inline(__always) mutating func boolField(_ field: UInt64, _ value: Bool) {
            guard value else { return }
            tag(field, 0)
            buffer.append(1)
        }

        @inline(__always) mutating func enumField(_ field: UInt64, _ value: Int) {
            guard value != 0 else { return }
            tag(field, 0)
            varint(UInt64(bitPattern: Int64(Int32(truncatingIfNeeded: value))))
        }

        mutating func bytesField(_ field: UInt64, _ value: String) {
            guard !value.isEmpty else { return }
            var value = value
            value.withUTF8 { utf8 in
                tag(field, 2)
                varint(UInt64(utf8.count))
                buffer.append(contentsOf: utf8)
            }
        }

        mutating func bytesField(_ field: UInt64, _ value: Data) {
            guard !value.isEmpty else { return }
            tag(field, 2)
            varint(UInt64(value.count))
            // Through its bytes: appending a `Data` as a sequence copies it a byte at a time.
            value.withUnsafeBytes { buffer.append(contentsOf: $0) }
        }

        @inline(__always) mutating func messageHeader(_ field: UInt64, _ size: Int) {
            tag(field, 2)
            varint(UInt64(size))
        }
    }
}
