import Foundation
import SwiftProtobuf

/// Writes `Flowd_V1_Envelope`s as frames: a 4-byte little-endian length, then the serialized envelope.
public enum FrameEncoder {
    /// Appends one frame to `buffer`, so that several frames can be written with one call.
    ///
    /// - Throws: `FrameError.emptyBody` if no body is set, `.frameTooLarge` if the
    ///   serialized envelope is over `maxFrameSize` bytes (then `buffer` is unchanged),
    ///   `.unencodable` if swift-protobuf fails.
    public static func append(
        _ envelope: Flowd_V1_Envelope,
        to buffer: inout [UInt8],
        maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize
    ) throws(FrameError) {
        guard envelope.body != nil else { throw .emptyBody }
        let body: [UInt8]
        do {
            body = try envelope.serializedBytes()
        } catch {
            throw .unencodable(reason: String(describing: error))
        }
        guard body.count <= maxFrameSize, body.count <= Int(UInt32.max) else {
            throw .frameTooLarge(length: body.count, maxFrameSize: maxFrameSize)
        }
        buffer.reserveForAppending(FrameHeader.size + body.count)
        FrameHeader.append(length: body.count, to: &buffer)
        buffer.append(contentsOf: body)
    }

    /// Appends one frame holding `body` with `seq` and `replyTo`: the same bytes
    /// as `append(_:to:maxFrameSize:)` with an `Envelope`, but the daemon's hot
    /// messages are written by `FastCodec` straight into `buffer`.
    public static func append(
        _ body: Flowd_V1_Envelope.OneOf_Body,
        seq: UInt64,
        replyTo: UInt64 = 0,
        to buffer: inout [UInt8],
        maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize
    ) throws(FrameError) {
        if FastCodec.append(body, seq: seq, replyTo: replyTo, to: &buffer, maxFrameSize: maxFrameSize) { return }
        try append(Flowd_V1_Envelope(body, seq: seq, replyTo: replyTo), to: &buffer, maxFrameSize: maxFrameSize)
    }

    /// Appends one frame holding an `Update` of `screenID` (its `serial`, and its state of
    /// `contentType`) with `seq`: the same bytes as `append(.update(…), seq:…)`, written without
    /// building the `Update`, its `Payload` and the body enum (the daemon sends one per output a flow
    /// answers). Throws `.frameTooLarge` (and leaves `buffer` unchanged) as `append` does.
    public static func appendUpdate(
        screenID: UInt64, serial: UInt64, contentType: String, state: Data,
        seq: UInt64, replyTo: UInt64 = 0, to buffer: inout [UInt8], maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize
    ) throws(FrameError) {
        if FastCodec.appendUpdate(screenID: screenID, serial: serial, contentType: contentType, state: state,
                                  seq: seq, replyTo: replyTo, to: &buffer, maxFrameSize: maxFrameSize) { return }
        var update = Flowd_V1_Update()
        update.screenID = screenID
        update.serial = serial
        update.state.contentType = contentType
        update.state.data = state
        try append(Flowd_V1_Envelope(.update(update), seq: seq, replyTo: replyTo), to: &buffer, maxFrameSize: maxFrameSize)
    }

    /// Returns one frame holding `envelope`; throws as `append(_:to:maxFrameSize:)` does.
    public static func encode(
        _ envelope: Flowd_V1_Envelope,
        maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize
    ) throws(FrameError) -> [UInt8] {
        var buffer: [UInt8] = []
        try append(envelope, to: &buffer, maxFrameSize: maxFrameSize)
        return buffer
    }
}
