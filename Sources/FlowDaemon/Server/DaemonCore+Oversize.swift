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
/// An answer, an error or an event is replaced by `ConnectionTable.send`; a command's refusal reaches
/// the app's half here.
extension DaemonCore {
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
