import Foundation

/// An `Output` as the daemon takes it from a screen host: the screen, the key and the payload's
/// two fields, read by `FastCodec` straight into the daemon's own value. As swift-protobuf's
/// `Flowd_V1_Output`, the payload sat in an optional message with unknown fields of its own, built
/// and copied out again (each read of `payload` a copy): 0.42 k instructions per output, callgrind
/// `flowd-echo`. The message (`message`, `payload`) is made only for the cold paths: events, logs,
/// and a `Frame` for `FrameDecoder.nextFrame()`.
package struct HostOutput {
    /// The screen the output is from.
    package var screenID: UInt64 = 0
    /// The output's idempotency key, or 0.
    package var key: UInt64 = 0
    /// The payload's content type.
    package var contentType = ""
    /// The payload's bytes.
    package var data = Data()
    /// Whether the message had a payload field (empty or not): kept so that `message` is the one sent.
    package var hasPayload = false

    package init() {}

    /// The output `message` holds (its unknown fields dropped: the daemon reads none).
    package init(_ message: Flowd_V1_Output) {
        screenID = message.screenID
        key = message.key
        hasPayload = message.hasPayload
        let payload = message.payload
        contentType = payload.contentType
        data = payload.data
    }

    /// The payload as the protocol's message.
    package var payload: Flowd_V1_Payload {
        var payload = Flowd_V1_Payload()
        payload.contentType = contentType
        payload.data = data
        return payload
    }

    /// The output as the protocol's message: the same message swift-protobuf decodes from the
    /// bytes `FastCodec` read it from.
    package var message: Flowd_V1_Output {
        var message = Flowd_V1_Output()
        message.screenID = screenID
        message.key = key
        if hasPayload { message.payload = payload }
        return message
    }
}
