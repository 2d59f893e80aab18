import FlowWire
import Logging
import UVKit

/// Who may stay, decided by the table as connections arrive and read: the daemon's phase, the peer's
/// uid, the connection limits, the unfinished-frame budget. Each refusal is a fatal error frame, then
/// a graceful close, logged at a bounded rate.
extension ConnectionTable {
    /// A peer of the named socket, just added: refused while the daemon stops (`running` false), for a
    /// uid other than `allowedUID`, or over a connection limit; otherwise it stays.
    mutating func admit(_ connection: Connection, running: Bool, allowedUID: UInt32, now: UInt64) {
        guard running else {
            connection.queue(.error(Flowd_V1_Error(code: .shuttingDown, message: "flowd is shutting down; try again later", fatal: true)))
            closeGracefully(connection, now: now)
            return
        }
        if let violation = ConnectionStateMachine.admit(connection.protocolState.origin, allowedUID: allowedUID) {
            throttle.log(logger, .warning, "refused.uid", "refused connection", ["connection": "\(connection.label)", "reason": "\(violation.message)"],
                         now: now)
            reject(connection, violation, replyTo: 0, logged: false, now: now)
            return
        }
        if let violation = admissionRefusal(of: connection) {
            refuseOverLimit(connection, violation, limit: "connections", replyTo: 0, now: now)
        }
    }

    /// `accept` failed on the listener (EMFILE, ENFILE, ...): logged, rate-limited; the daemon keeps
    /// serving. (At EMFILE libuv closes the waiting peers itself, with a descriptor it keeps in reserve,
    /// and says nothing; it reports the failure only without that reserve.)
    func acceptFailed(_ error: UVError, now: UInt64) {
        throttle.log(logger, .error, "accept", "cannot accept a connection; flowd goes on serving", [
            "error": "\(error)", "connections": "\(count)", "limit": "\(limits.maxConnections)",
            "advice": "raise the open-file limit (ulimit -n), or lower --max-connections below it",
        ], now: now)
    }

    /// After a read of `connection` was handled: a frame left unfinished must end within the frame
    /// timeout, and unfinished frames count against the budget of all connections (two loads when
    /// none is held); the connection that crosses it is refused.
    mutating func afterRead(_ connection: Connection, now: UInt64) {
        watchForStalledFrame(connection, now: now)
        if connection.partialBytesCounted != 0 || connection.bufferedByteCount != 0, !connection.isClosing,
           let violation = countPartialFrame(of: connection) {
            refuseOverLimit(connection, violation, limit: "unfinished frames", replyTo: 0, now: now)
        }
    }

    /// The peer closed its end (or reading failed): the connection closes now; a peer gone mid-frame
    /// is worth a notice.
    func ended(_ connection: Connection, error: UVError?) {
        if connection.isMidFrame {
            logger.notice("peer disconnected mid-frame", metadata: [
                "connection": "\(connection.label)", "buffered": "\(connection.bufferedByteCount)",
            ])
        } else if let error {
            logger.debug("read ended", metadata: ["connection": "\(connection.label)", "error": "\(error)"])
        }
        connection.forceClose()
    }
}
