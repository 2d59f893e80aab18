import Logging

/// The daemon's side of the service protocol while it runs (docs/service.md): the notifier, the sink
/// it sends to, and its two timers on the daemon loop's clock — the watchdog ping every half interval
/// (on the loop, so a hung loop stops pinging and the service manager kills and restarts the daemon)
/// and the send of a held status when its time comes. It takes the daemon's status as an input
/// (`ServiceStatus`) and reads nothing else of the daemon. The driver folds `nextDeadline` with its
/// others and calls `expire(now:status:)`; so the embedded daemon drives these timers like every
/// other. Exists only when a service manager listens (`$NOTIFY_SOCKET`, or a test's sink).
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

    /// A session with the service manager that listens on `environment`'s `$NOTIFY_SOCKET`; nil when
    /// none does, or when its socket cannot be opened (logged: the daemon serves without notifying).
    static func open(_ environment: ServiceEnvironment, appName: String?, now: UInt64, logger: Logger) -> ServiceSession? {
        guard let address = environment.notifySocket else { return nil }
        let sink: NotifySocketSink
        do {
            sink = try NotifySocketSink(address: address)
        } catch {
            logger.warning("cannot open the service manager's notification socket; not notifying", metadata: [
                "NOTIFY_SOCKET": "\(address)", "error": "\(error)",
            ])
            return nil
        }
        let notifier = ServiceNotifier(sink: sink, appName: appName, watchdogMicroseconds: environment.watchdogMicroseconds, logger: logger)
        logger.debug("notifying the service manager", metadata: [
            "NOTIFY_SOCKET": "\(address)", "watchdog_ms": "\(notifier.watchdogPeriod.map { "\($0)" } ?? "off")",
        ])
        return ServiceSession(notifier: notifier, now: now, closeSink: sink.close)
    }

    /// The earliest of the session's timers.
    var nextDeadline: UInt64? {
        guard let nextPing else { return statusDue }
        guard let statusDue else { return nextPing }
        return min(nextPing, statusDue)
    }

    /// The daemon listens and its app started: `READY=1` with the first status.
    func ready(_ status: ServiceStatus, now: UInt64) {
        notifier.ready(status, now: now)
    }

    /// A step of the graceful shutdown began: `STOPPING=1` the first time, and the new status.
    func stopping(_ status: ServiceStatus, reason: String, now: UInt64) {
        notifier.stopping(status, reason: reason, now: now)
    }

    /// The end of a loop iteration: the status goes out if it changed, rate-limited; a change that
    /// must wait is held until its time (`nextDeadline`).
    func iterationEnded(_ status: ServiceStatus, now: UInt64) {
        guard let due = notifier.update(status, now: now), statusDue == nil else { return }
        statusDue = due
    }

    /// The timers that passed: a watchdog ping, a held status (the current one is sent).
    func expire(now: UInt64, status: @autoclosure () -> ServiceStatus) {
        if let ping = nextPing, ping <= now, let period = notifier.watchdogPeriod {
            notifier.watchdogPing()
            nextPing = now + period
        }
        guard let due = statusDue, due <= now else { return }
        statusDue = nil
        iterationEnded(status(), now: now)
    }

    /// Stops the timers and closes the sink (the daemon's loop is ending).
    func close() {
        nextPing = nil
        statusDue = nil
        closeSink()
    }
}
