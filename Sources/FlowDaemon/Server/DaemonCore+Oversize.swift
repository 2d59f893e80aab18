import FlowKit
import FlowWire

/// Frames that do not fit the peer's maximum frame size (negotiated in `Hello`): each is answered or
/// counted, and logged (rate-limited), never dropped without a word (docs/protocol.md, §16).
///
/// - an answer (`Tree`, `Stats`, `History`, ...) becomes a non-fatal `LIMIT_EXCEEDED` naming the
///   size and the limit, with the same `reply_to`;
/// - an `Error` is cut to fit, saying how much of its message was left out;
/// - a screen command fails: the host gets `LIMIT_EXCEEDED` naming the screen and serial, and the
///   screen is removed as one its host cannot show (`AppCore.undeliverable`);
/// - an event is counted as dropped, and the watcher gets `Lagged` (`EventBus`).
///
/// The check is the encoder's own (`FrameEncoder` refuses the frame); none of this runs unless it did.
extension DaemonCore {
    /// The encoder refused `body` for `connection`: queues what answers in its place. Returns whether
    /// something was queued.
    @inline(never)
    mutating func queueInstead(of body: Flowd_V1_Envelope.OneOf_Body, to connection: Connection, replyTo: UInt64) -> Bool {
        guard case .frameTooLarge(let length, let limit)? = connection.refusal else {
            logger.error("cannot encode a frame; it was not sent", metadata: [
                "connection": "\(connection.label)", "frame": "\(body.name)", "error": "\(connection.refusal.map { "\($0)" } ?? "unknown")",
            ])
            return false
        }
        throttle.log(logger, .warning, "oversize.\(body.name)", "a frame is over the peer's maximum frame size; sent an error instead", [
            "connection": "\(connection.label)", "frame": "\(body.name)", "bytes": "\(length)", "limit": "\(limit)",
        ], now: loop.now)
        let instead: Flowd_V1_Envelope.OneOf_Body
        if case .error(var error) = body {
            // Room for the envelope, the other fields and the note of what was cut.
            error.message = error.message.bounded(max(0, limit - 256))
            instead = .error(error)
        } else {
            instead = .error(Flowd_V1_Error(
                code: .limitExceeded,
                message: "the \(body.name) is \(length) bytes, over this connection's maximum frame size of \(limit) bytes; "
                    + "it was not sent. To receive it: \(AppCore.frameSizeAdvice(limit: limit, ceiling: configuration.maxFrameSize))"))
        }
        return connection.queue(instead, replyTo: replyTo)
    }

    /// The encoder refused a screen command for `connection`: the command fails loudly.
    @inline(never)
    mutating func commandRefused(_ outgoing: ScreenDelivery.Outgoing, on connection: Connection) {
        guard case .frameTooLarge(let length, let limit)? = connection.refusal else {
            logger.error("cannot encode a screen command; it was not sent", metadata: [
                "connection": "\(connection.label)", "screen": "\(outgoing.command.screen)", "serial": "\(outgoing.serial)",
            ])
            return
        }
        throttle.log(logger, .warning, "oversize.command", "a screen command is over its host's maximum frame size; the screen is removed", [
            "connection": "\(connection.label)", "screen": "\(outgoing.command.screen)", "serial": "\(outgoing.serial)",
            "bytes": "\(length)", "limit": "\(limit)",
        ], now: loop.now)
        app.undeliverable(outgoing, host: connection.id, length: length, limit: limit, ceiling: configuration.maxFrameSize)
    }
}
