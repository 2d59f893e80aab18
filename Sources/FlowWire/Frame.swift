/// One decoded frame without its `Envelope` wrapper: what the daemon works
/// with. `nextFrame()` fills it from the fast codec for the hot messages and
/// from swift-protobuf for the rest.
public struct Frame: Sendable, Equatable {
    /// The sender's frame number.
    public var seq: UInt64
    /// The frame this one answers, or 0.
    public var replyTo: UInt64
    /// The message; nil only for an envelope without a body (which `nextFrame` reports as `.emptyBody`).
    public var body: Flowd_V1_Envelope.OneOf_Body?

    public init(seq: UInt64, replyTo: UInt64, body: Flowd_V1_Envelope.OneOf_Body?) {
        self.seq = seq
        self.replyTo = replyTo
        self.body = body
    }

    /// The same frame as an `Envelope`.
    public var envelope: Flowd_V1_Envelope {
        var envelope = Flowd_V1_Envelope()
        envelope.seq = seq
        envelope.replyTo = replyTo
        envelope.body = body
        return envelope
    }
}
