import Logging
import UVKit

/// The daemon's side of the service protocol while it runs on libuv: the notifier, the socket it
/// sends to, the watchdog timer that pings every half interval — on the loop, so a hung loop stops
/// pinging and the service manager kills and restarts the daemon — and the timer that sends a held
/// status when its time comes. Created by `Daemon.startService` only when `$NOTIFY_SOCKET` was set;
/// an embedded daemon never has one.
final class ServiceSession {
    /// What to send, and when.
    let notifier: ServiceNotifier
    private let sink: NotifySocketSink
    private var watchdogTimer: UVTimer?
    private var statusTimer: UVTimer?
    private let statusDue: () -> Void

    /// Starts the watchdog pings (if the notifier has a period); `statusDue` runs when a held status may go out.
    init(notifier: ServiceNotifier, sink: NotifySocketSink, loop: UVLoop, statusDue: @escaping () -> Void) {
        self.notifier = notifier
        self.sink = sink
        self.statusTimer = UVTimer(loop: loop)
        self.statusDue = statusDue
        if let period = notifier.watchdogPeriod {
            let timer = UVTimer(loop: loop)
            timer.start(after: period, repeat: period) { [notifier] in notifier.watchdogPing() }
            watchdogTimer = timer
        }
    }

    /// A changed status waits until `deadline` (loop milliseconds): arm the status timer unless it already runs.
    func statusHeld(until deadline: UInt64, now: UInt64) {
        guard let statusTimer, !statusTimer.isActive else { return }
        statusTimer.start(after: deadline > now ? deadline - now : 0, statusDue)
    }

    /// Stops the timers and closes the socket (the daemon's loop is ending).
    func close() {
        watchdogTimer?.close()
        watchdogTimer = nil
        statusTimer?.close()
        statusTimer = nil
        sink.close()
    }
}
