import Logging

/// The daemon as a service (docs/service.md): what it tells the service manager goes through its
/// `ServiceSession`; the core only says when, with the current status. Only `run()` opens a session;
/// an embedded daemon has none unless its test gives it a sink.
extension DaemonCore {
    /// Starts talking to the service manager `environment` names, when one listens: the watchdog pings begin now.
    mutating func startService(_ environment: ServiceEnvironment) {
        service = ServiceSession.open(environment, appName: app.app?.name, now: loop.monotonicNow, logger: logger)
        armDeadlineTimer()
    }

    /// Starts talking to a service manager through `sink` (the embedded daemon's tests pass a recorder);
    /// `watchdogMicroseconds` is its `WATCHDOG_USEC`. The pings run on the loop's clock.
    package mutating func startService(sink: any ServiceNotifySink, watchdogMicroseconds: UInt64?, closeSink: @escaping () -> Void = {}) {
        loop.assertOnLoop()
        let notifier = ServiceNotifier(sink: sink, appName: app.app?.name, watchdogMicroseconds: watchdogMicroseconds, logger: logger)
        service = ServiceSession(notifier: notifier, now: loop.monotonicNow, closeSink: closeSink)
        armDeadlineTimer()
    }

    /// The one point where the daemon is ready: it listens and its app started (whatever `startApp()` restores
    /// comes before this). Tells the service manager `READY=1` with the first status. Called once, by `run()`.
    package mutating func becameReady() {
        loop.assertOnLoop()
        guard let service else { return }
        service.ready(serviceStatus, now: loop.monotonicNow)
        logger.debug("told the service manager READY=1")
    }

    /// What `STATUS=` reports now.
    var serviceStatus: ServiceStatus {
        ServiceStatus(
            phase: phase, flows: app.liveCounts.flows, screens: app.liveCounts.screens,
            connections: connections.count, screenProcesses: hosts.processCount)
    }
}
