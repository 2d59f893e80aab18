import FlowKit
import FlowWire
import Logging

/// What the table queues to its connections and how it refuses them: the one writer of a
/// connection's frames besides the event hand-over. Every frame is queued for the end of the loop
/// iteration's write; one over the peer's maximum frame size is answered in its place, never dropped
/// unsaid (docs/protocol.md, §16).
extension ConnectionTable {
    /// Queues a frame to `connection`; it is written at the end of this loop iteration. A frame over
    /// the connection's maximum frame size is answered instead (`queueInstead`).
    @inline(__always)
    mutating func send(_ body: Flowd_V1_Envelope.OneOf_Body, to connection: Connection, replyTo: UInt64 = 0, now: UInt64) {
        if !connection.queue(body, replyTo: replyTo) {
            guard !connection.isClosing, queueInstead(of: body, to: connection, replyTo: replyTo, now: now) else { return }
        }
        markDirty(connection)
    }

    /// Queues a screen command to its host. Returns false when it is over the host's maximum frame
    /// size: nothing was queued, and the command must fail loudly (`DaemonCore.commandRefused`).
    @inline(__always)
    mutating func send(_ outgoing: ScreenDelivery.Outgoing, stateContentType: String, displayToken: String, to connection: Connection) -> Bool {
        guard connection.queue(outgoing, stateContentType: stateContentType, displayToken: displayToken) else { return connection.isClosing }
        markDirty(connection)
        return true
    }

    /// Closes the connection `id` now, whatever it holds (a hung process killed, a spawn that failed,
    /// a peer that stopped reading or did not drain).
    func closeNow(_ id: UInt64) {
        self[id]?.forceClose()
    }

    /// Tells the connection `id` `shutdown`, hands it to the kernel if it takes it (try-write: a hung
    /// or replaced peer will not drain its queue), and closes it now.
    func disconnectNow(_ id: UInt64, telling shutdown: Flowd_V1_Shutdown) {
        guard let connection = self[id], !connection.isClosing else { return }
        connection.queue(.shutdown(shutdown))
        connection.flush()
        connection.forceClose()
    }

    /// Tells `connection` `shutdown` and closes it gracefully (the daemon stops).
    mutating func closeTelling(_ connection: Connection, _ shutdown: Flowd_V1_Shutdown, now: UInt64) {
        connection.queue(.shutdown(shutdown))
        closeGracefully(connection, now: now)
    }

    /// Closes `connection` for `violation`: a fatal `Error` (answering `replyTo`), `Shutdown`, then a
    /// graceful close; its screens are not held for it. `logged` false: the caller logged it.
    mutating func reject(_ connection: Connection, _ violation: ConnectionStateMachine.Violation, replyTo: UInt64, logged: Bool = true, now: UInt64) {
        leavesForGood(connection)
        if logged {
            throttle.log(logger, .notice, "reject.\(violation.code)", "protocol error; closing connection", [
                "connection": "\(connection.label)", "code": "\(violation.code)", "reason": "\(violation.message.bounded(1024))",
            ], now: now)
        }
        send(.error(Flowd_V1_Error(code: violation.code, message: violation.message, fatal: true)), to: connection, replyTo: replyTo, now: now)
        send(.shutdown(.init(reason: .protocolError, message: violation.message.bounded(1024))), to: connection, now: now)
        closeGracefully(connection, now: now)
    }

    /// Closes `connection` with a fatal `LIMIT_EXCEEDED`: an `Error` frame, `Shutdown`, then close; one
    /// log line per kind of refusal a second at most (a flood is a few lines). `limit` names the limit,
    /// for the log's rate (one fixed key each, whoever the peer is).
    mutating func refuseOverLimit(_ connection: Connection, _ violation: ConnectionStateMachine.Violation, limit: String, replyTo: UInt64, now: UInt64) {
        throttle.log(logger, .warning, "limit.\(limit)", "refused a connection over a limit", [
            "limit": "\(limit)", "connection": "\(connection.label)", "connections": "\(count)", "reason": "\(violation.message)",
        ], now: now)
        reject(connection, violation, replyTo: replyTo, logged: false, now: now)
    }

    /// The encoder refused `body` for `connection`: queues what answers in its place. Returns whether
    /// something was queued.
    @inline(never)
    private func queueInstead(of body: Flowd_V1_Envelope.OneOf_Body, to connection: Connection, replyTo: UInt64, now: UInt64) -> Bool {
        guard case .frameTooLarge(let length, let limit)? = connection.refusal else {
            logger.error("cannot encode a frame; it was not sent", metadata: [
                "connection": "\(connection.label)", "frame": "\(body.name)", "error": "\(connection.refusal.map { "\($0)" } ?? "unknown")",
            ])
            return false
        }
        throttle.log(logger, .warning, "oversize.\(body.name)", "a frame is over the peer's maximum frame size; sent an error instead", [
            "connection": "\(connection.label)", "frame": "\(body.name)", "bytes": "\(length)", "limit": "\(limit)",
        ], now: now)
        let instead: Flowd_V1_Envelope.OneOf_Body
        if case .error(var error) = body {
            // Room for the envelope, the other fields and the note of what was cut.
            error.message = error.message.bounded(max(0, limit - 256))
            instead = .error(error)
        } else {
            instead = .error(Flowd_V1_Error(
                code: .limitExceeded,
                message: "the \(body.name) is \(length) bytes, over this connection's maximum frame size of \(limit) bytes; "
                    + "it was not sent. To receive it: \(AppCore.frameSizeAdvice(limit: limit, ceiling: limits.maxFrameSize))"))
        }
        return connection.queue(instead, replyTo: replyTo)
    }

    /// Queues the events a watcher is due (`hand` is given each watcher's unread bytes, nil when its
    /// connection is gone or closing, and a way to queue a frame to it; it returns the events over a
    /// watcher's maximum frame size, counted as missed, which are logged here).
    mutating func handEvents(now: UInt64, _ hand: (_ pendingBytes: (UInt64) -> Int?, _ queue: (UInt64, Flowd_V1_Envelope.OneOf_Body) -> Bool) -> Int) {
        let table = self
        var written: [UInt64] = []
        let oversized = hand({ id in table[id].flatMap { $0.isClosing ? nil : $0.pendingBytes } }, { id, body in
            guard let watcher = table[id] else { return false }
            written.append(id)
            return watcher.queue(body)
        })
        for id in written { if let watcher = self[id] { markDirty(watcher) } }
        guard oversized > 0 else { return }
        throttle.log(logger, .warning, "oversize.event", "events over a watcher's maximum frame size were not sent; the watcher is told with Lagged",
                     ["events": "\(oversized)"], now: now)
    }
}
