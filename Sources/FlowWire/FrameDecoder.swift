import Foundation
import SwiftProtobuf

/// Turns a byte stream, in chunks of any size, into `Flowd_V1_Envelope`s.
///
/// A frame is a 4-byte little-endian length N followed by N bytes of one
/// serialized envelope. Feed bytes with `append(_:)`, then call
/// `nextEnvelope()` until it returns `nil` (more bytes needed).
///
/// - A length over `maxFrameSize` is rejected as soon as its 4 header bytes
///   arrive: its body is never kept (what came after the header in the same
///   read is dropped). This error is sticky: the stream cannot be
///   resynchronised, later calls throw it again and later bytes are dropped.
/// - A frame whose bytes do not decode, or that has no body, is consumed and
///   reported; the next call goes on with the following frame (the protocol
///   makes these fatal, but that is the connection's decision).
///
/// Consumed bytes are skipped with an offset and the buffer is compacted only
/// when the consumed part outweighs the rest, so each byte costs amortised O(1).
public struct FrameDecoder: Sendable {
    /// The maximum frame size before negotiation: 1 MiB.
    public static let defaultMaxFrameSize = WireProtocol.defaultMaxFrameSize

    /// The largest body length accepted, in bytes; set it to the negotiated value after the handshake.
    public var maxFrameSize: Int {
        didSet { precondition(maxFrameSize >= 0, "FrameDecoder.maxFrameSize must not be negative") }
    }

    /// Received bytes; those before `readIndex` are consumed.
    private var buffer: [UInt8] = []
    /// Where the next frame's header starts.
    private var readIndex = 0
    /// Where the first header not yet checked against `maxFrameSize` starts (>= readIndex).
    /// While `buffer.count <= scanIndex`, incoming bytes belong to an already checked body.
    private var scanIndex = 0
    /// A header over the maximum seen by `append`: its position and the error to throw there.
    private var rejection: (index: Int, error: FrameError)?
    /// Set once a frame-too-large error was thrown; the stream is unusable from then on.
    private var failure: FrameError?
    /// The payload content type this peer sent last, reused while it sends the same (`FastCodec`).
    private var contentTypes = FastCodec.ContentTypes()

    /// Above this capacity an emptied buffer is released instead of kept for reuse.
    private static let retainedCapacity = 64 * 1024

    /// A decoder that accepts frames up to `maxFrameSize` bytes (1 MiB by default).
    public init(maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize) {
        precondition(maxFrameSize >= 0, "FrameDecoder.maxFrameSize must not be negative")
        self.maxFrameSize = maxFrameSize
    }

    /// Bytes received and not yet returned as envelopes (0 after a sticky failure).
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// True if part of a frame has arrived but not all of it (a peer closing now cut a frame short).
    public var isMidFrame: Bool { bufferedByteCount > 0 }

    /// Adds received bytes. A header over the maximum stops buffering at its last byte.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, rejection == nil, !bytes.isEmpty else { return }
        compactIfWorthIt()
        // The whole read at once, then its headers checked in place: an append per header and per
        // body cost ~100 instructions each, 2.6 per output in `flowd-echo` (callgrind). A read is at
        // most one pipe buffer, so what follows a header over the maximum is held only until it is
        // dropped below.
        buffer.append(contentsOf: bytes)
        while buffer.count >= scanIndex + FrameHeader.size {
            let length = FrameHeader.length(in: buffer, at: scanIndex)
            if length > maxFrameSize {
                rejection = (scanIndex, .frameTooLarge(length: length, maxFrameSize: maxFrameSize))
                buffer.removeSubrange((scanIndex + FrameHeader.size)...)
                return
            }
            scanIndex += FrameHeader.size + length
        }
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Returns the next complete envelope, or `nil` if more bytes are needed.
    ///
    /// - Throws: `FrameError.frameTooLarge` (sticky), `.malformed` or `.emptyBody` (that frame is skipped).
    public mutating func nextEnvelope() throws(FrameError) -> Flowd_V1_Envelope? {
        guard let range = try nextBodyRange() else { return nil }
        let envelope = try Self.decode(buffer, range)
        guard envelope.body != nil else { throw .emptyBody }
        return envelope
    }

    /// Returns the next complete frame, or `nil` if more bytes are needed: the
    /// same as `nextEnvelope()`, but the hot messages (`Ping`, `Ack`,
    /// `Output`) are decoded by `FastCodec`, without building an `Envelope`.
    ///
    /// - Throws: as `nextEnvelope()`.
    public mutating func nextFrame() throws(FrameError) -> Frame? {
        var output = HostOutput()
        let hot = try nextHotFrame(output: &output)
        return hot.isFrame ? hot.frame(output: output) : nil
    }

    /// The content type the next outputs are expected in (a screen just placed on this connection):
    /// decoded, they carry this string itself (`FastCodec.ContentTypes.expect`).
    package mutating func expectContentType(_ contentType: String) { contentTypes.expect(contentType) }

    /// The next frame as a `HotFrame` (what the daemon reads with), `HotFrame.noFrame` when none is
    /// complete: the same frames and errors as `nextFrame()`. An output is written into `output`.
    package mutating func nextHotFrame(output: inout HostOutput) throws(FrameError) -> HotFrame {
        guard let range = try nextBodyRange() else { return .noFrame }
        let fast = buffer.withUnsafeBytes { raw in FastCodec.decodeHot(UnsafeRawBufferPointer(rebasing: raw[range]), contentTypes: &contentTypes, output: &output) }
        if let fast { return fast }
        let envelope = try Self.decode(buffer, range)
        guard let body = envelope.body else { throw .emptyBody }
        return HotFrame(seq: envelope.seq, replyTo: envelope.replyTo, body: .other(body))
    }

    /// The body range of the next complete frame (consumed), or nil if more bytes are needed.
    private mutating func nextBodyRange() throws(FrameError) -> Range<Int>? {
        if let failure { throw failure }
        guard bufferedByteCount >= FrameHeader.size else { return nil }
        if let rejection, rejection.index == readIndex {
            fail(rejection.error)
            throw rejection.error
        }
        let length = FrameHeader.length(in: buffer, at: readIndex)
        guard length <= maxFrameSize else {
            // maxFrameSize was lowered after append checked this header.
            let error = FrameError.frameTooLarge(length: length, maxFrameSize: maxFrameSize)
            fail(error)
            throw error
        }
        let bodyStart = readIndex + FrameHeader.size
        guard buffer.count - bodyStart >= length else { return nil }
        readIndex = bodyStart + length
        return bodyStart..<readIndex
    }

    /// Decodes `range` of `bytes` in place, without copying the body.
    private static func decode(_ bytes: [UInt8], _ range: Range<Int>) throws(FrameError) -> Flowd_V1_Envelope {
        do {
            return try bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress, !range.isEmpty else { return Flowd_V1_Envelope() }
                // A non-owning view; swift-protobuf copies what it keeps (strings, bytes fields).
                let view = Data(
                    bytesNoCopy: UnsafeMutableRawPointer(mutating: base + range.lowerBound),
                    count: range.count,
                    deallocator: .none
                )
                return try Flowd_V1_Envelope(serializedBytes: view)
            }
        } catch {
            throw .malformed(reason: String(describing: error))
        }
    }

    /// Records a sticky failure and drops everything buffered.
    private mutating func fail(_ error: FrameError) {
        failure = error
        rejection = nil
        buffer = []
        readIndex = 0
        scanIndex = 0
    }

    /// Drops consumed bytes when that moves no more bytes than were consumed since the last time.
    private mutating func compactIfWorthIt() {
        guard readIndex > 0 else { return }
        let remaining = buffer.count - readIndex
        if remaining == 0 {
            if buffer.capacity > Self.retainedCapacity {
                buffer = []
            } else {
                buffer.removeAll(keepingCapacity: true)
            }
        } else if remaining <= readIndex {
            buffer.removeSubrange(0..<readIndex)
        } else {
            return
        }
        scanIndex -= readIndex
        if rejection != nil { rejection!.index -= readIndex }
        readIndex = 0
    }
}
