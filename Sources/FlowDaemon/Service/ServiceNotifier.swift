import Logging

/// Where service notifications go: the service manager's datagram socket (`NotifySocketSink`) in the
/// daemon, a recorder in tests.
package protocol ServiceNotifySink: AnyObject {
    /// Sends one notification: newline-separated `KEY=value` assignments in one datagram.
    func send(_ message: String) throws
}

/// What flowd tells its service manager, in systemd's `sd_notify` protocol, written without
/// libsystemd: `READY=1` once (with the first `STATUS=`), `STATUS=` lines when the counts change —
/// at most one per `statusInterval`, the last change held back and sent when its time comes —
/// `STOPPING=1` once when the graceful shutdown begins, and `WATCHDOG=1` pings. The I/O is behind
/// `ServiceNotifySink`; the clock is the caller's (milliseconds), so every rule is tested without a
/// socket or a wall clock. The daemon drives it from its loop (`DaemonCore+Service.swift`).
package final class ServiceNotifier {
    /// The shortest time between two status-only notifications, in milliseconds.
    package let statusInterval: UInt64
    /// Milliseconds between two `WATCHDOG=1` pings: half the service manager's interval (nil: no watchdog).
    package let watchdogPeriod: UInt64?
    /// The app the daemon serves, named in the status.
    package let appName: String?
    /// Why the daemon is shutting down, once it is.
    package private(set) var shutdownReason: String?
    /// Whether `READY=1` was sent.
    package private(set) var isReady = false
    /// Whether `STOPPING=1` was sent.
    package private(set) var isStopping = false
    /// Notifications the sink refused so far.
    package private(set) var failures = 0

    private let sink: any ServiceNotifySink
    private let logger: Logger
    private var lastStatus: ServiceStatus?
    private var lastStatusAt: UInt64 = 0
    private var held = false

    /// A notifier sending to `sink`; `watchdogMicroseconds` is `WATCHDOG_USEC` when the pings are for us.
    package init(sink: any ServiceNotifySink, appName: String?, watchdogMicroseconds: UInt64?, statusInterval: UInt64 = 1_000,
                 logger: Logger) {
        self.sink = sink
        self.appName = appName
        self.watchdogPeriod = watchdogMicroseconds.map { max(1, $0 / 2_000) }
        self.statusInterval = statusInterval
        self.logger = logger
    }

    /// The daemon listens and its app started: `READY=1` and the status, once.
    package func ready(_ status: ServiceStatus, now: UInt64) {
        guard !isReady else { return }
        isReady = true
        sendStatus(status, now: now, prefix: "READY=1\n")
    }

    /// The graceful shutdown began (or moved to its next phase): `STOPPING=1` the first time, then the new status
    /// at once (not rate-limited: these are the moments a person watching wants to see).
    package func stopping(_ status: ServiceStatus, reason: String, now: UInt64) {
        if shutdownReason == nil, !reason.isEmpty { shutdownReason = reason }
        let first = !isStopping
        isStopping = true
        sendStatus(status, now: now, prefix: first ? "STOPPING=1\n" : "")
    }

    /// The current status, at the end of a loop iteration. Sent when it changed and the last one went out at
    /// least `statusInterval` ago; otherwise held. Returns when to call again for a held status (nil: none held).
    package func update(_ status: ServiceStatus, now: UInt64) -> UInt64? {
        guard isReady, status != lastStatus else {
            held = false
            return nil
        }
        let due = lastStatusAt + statusInterval
        if now >= due {
            sendStatus(status, now: now, prefix: "")
            return nil
        }
        held = true
        return due
    }

    /// Whether a changed status waits for its time.
    package var holdsStatus: Bool { held }

    /// One watchdog ping (`WATCHDOG=1`).
    package func watchdogPing() {
        send("WATCHDOG=1")
    }

    private func sendStatus(_ status: ServiceStatus, now: UInt64, prefix: String) {
        lastStatus = status
        lastStatusAt = now
        held = false
        send(prefix + "STATUS=" + status.text(app: appName, shutdownReason: shutdownReason))
    }

    private func send(_ message: String) {
        do {
            try sink.send(message)
            logger.trace("notified the service manager", metadata: ["message": "\(message)"])
        } catch {
            failures += 1
            // Once: a service manager that went away should not fill the log.
            if failures == 1 {
                logger.warning("cannot notify the service manager; it may consider flowd not started or hung", metadata: [
                    "message": "\(message)", "error": "\(error)",
                ])
            }
        }
    }
}
