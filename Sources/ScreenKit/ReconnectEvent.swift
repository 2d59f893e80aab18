/// What a reconnecting host went through, for `ScreenHost.onReconnect` (to log it, or to show
/// "reconnecting…"). See `ReconnectPolicy` and docs/screenkit.md.
public enum ReconnectEvent: Sendable, Hashable, CustomStringConvertible {
    /// The connection dropped (`.connectionClosed`, or `.shutdown(.hung)` from the daemon's
    /// watchdog) while the host showed `screens` screens; it reconnects to `path`.
    case dropped(ExitReason, screens: Int, path: String)
    /// The daemon refused the resume token (`RESUME_REFUSED`): the host drops its old screens
    /// (dismissed with `.connectionLost`) and connects again without a token; flowd places the
    /// screens that wait for its kinds on it.
    case resumeRefused(message: String)
    /// Connected again after `attempts` tries. `resumed`: the daemon took the token back and
    /// places the screens that still exist again; false: a fresh start.
    case reconnected(connectionID: UInt64, resumed: Bool, attempts: Int)
    /// On the new connection, `inputs` outputs and navigation the old one had not confirmed were
    /// sent again with their keys: the daemon applies those it had not got, once.
    case resent(inputs: Int)
    /// No try succeeded in time; `run()` returns `.connectionClosed`. `lastError` is the last try's failure.
    case gaveUp(attempts: Int, lastError: ScreenKitError)

    /// One line for a log.
    public var description: String {
        switch self {
        case .dropped(let reason, let screens, let path):
            "connection to flowd lost (\(reason)) with \(screens) screen(s); reconnecting to \(path) to resume"
        case .resumeRefused(let message):
            "flowd refused to resume (\(message)); dropping the old screens and connecting again as a new host (flowd places the screens that wait for its kinds)"
        case .reconnected(let connectionID, let resumed, let attempts):
            "reconnected to flowd as connection \(connectionID) after \(attempts) tr\(attempts == 1 ? "y" : "ies")"
                + (resumed ? "; resumed, its screens follow" : "; a fresh start")
        case .resent(let inputs):
            "sent again \(inputs) input(s) flowd had not confirmed; it applies each once"
        case .gaveUp(let attempts, let lastError):
            "gave up reconnecting to flowd after \(attempts) tr\(attempts == 1 ? "y" : "ies"); last: \(lastError)"
        }
    }
}
