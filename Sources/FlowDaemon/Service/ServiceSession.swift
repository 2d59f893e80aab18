/// The daemon's side of the service protocol while it runs: the notifier, the sink it sends to, and
/// its two timers on the daemon loop's clock — the watchdog ping every half interval (on the loop, so
/// a hung loop stops pinging and the service manager kills and restarts the daemon) and the send of a
/// held status when its time comes. The driver folds `nextDeadline` with its others and calls
/// `expire(now:)`; so the embedded daemon drives these timers like every other. Created by
/// `Daemon.startService` only when a service manager listens (`$NOTIFY_SOCKET`, or a test's sink).
final class ServiceSession {
    /// What to send, and when.
    let notifier: ServiceNotifier
    private let closeSink: () -> Void
    /// When the next `WATCHDOG=1` is due (nil: no watchdog).
    private var nextPing: UInt64?
    /// When a held status may go out (nil: none held).
    private var statusDue: UInt64?

    /// A session whose first watchdog ping (if the notifier has a period) is due a period after `now`;
    /// `closeSink` closes the sink when the daemon stops.
    init(notifier: ServiceNotifier, now: UInt64, closeSink: @escaping () -> Void) {
        self.notifier = notifier
        self.closeSink = closeSink
        nextPing = notifier.watchdogPeriod.map { now + $0 }
    }

    /// The earliest of the session's timers.
    var nextDeadline: UInt64? {
        guard let nextPing else { return statusDue }
        guard let statusDue else { return nextPing }
        return min(nextPing, statusDue)
    }

    /// A changed status waits until `deadline` (loop milliseconds), unless one already waits.
    func statusHeld(until deadline: UInt64) {
        if statusDue == nil { statusDue = deadline }
    }

    /// Pings if a ping is due; returns whether a held status is due (the driver sends the current one).
    func expire(now: UInt64) -> Bool {
        if let ping = nextPing, ping <= now, let period = notifier.watchdogPeriod {
            notifier.watchdogPing()
            nextPing = now + period
        }
        guard let due = statusDue, due <= now else { return false }
        statusDue = nil
        return true
    }

    /// Stops the timers and closes the sink (the daemon's loop is ending).
    func close() {
        nextPing = nil
        statusDue = nil
        closeSink()
    }
}
