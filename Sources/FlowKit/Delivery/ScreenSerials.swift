/// The serial and acknowledgement bookkeeping of one screen, as a value:
/// every command sent takes the next serial; an ack covers every serial up to
/// it; an ack above the last serial sent is a protocol error.
public struct ScreenSerials: Sendable, Hashable {
    /// The last serial sent (0: nothing sent yet).
    public private(set) var lastSent: UInt64 = 0
    /// The highest serial acknowledged.
    public private(set) var acked: UInt64 = 0
    /// The serial of the `Dismiss`, once sent.
    public private(set) var dismissSerial: UInt64?

    /// No serial sent yet.
    public init() {}

    /// What an ack meant.
    public enum AckResult: Sendable, Equatable {
        /// Accepted; `completesDismissal` if it covers the `Dismiss`.
        case accepted(completesDismissal: Bool)
        /// At or below what was already acknowledged: ignored.
        case stale
        /// Never sent: answer UNKNOWN_SERIAL.
        case unknown
    }

    /// Takes the next serial for a command.
    public mutating func next() -> UInt64 {
        lastSent += 1
        return lastSent
    }

    /// Takes the serial of the `Dismiss`; no command follows it.
    public mutating func nextDismiss() -> UInt64 {
        let serial = next()
        dismissSerial = serial
        return serial
    }

    /// Whether a command is waiting for its ack.
    public var isPending: Bool { acked < lastSent }

    /// Records an ack from the host.
    public mutating func ack(_ serial: UInt64) -> AckResult {
        guard serial != 0, serial <= lastSent else { return .unknown }
        guard serial > acked else { return .stale }
        acked = serial
        if let dismissSerial, serial >= dismissSerial { return .accepted(completesDismissal: true) }
        return .accepted(completesDismissal: false)
    }
}
