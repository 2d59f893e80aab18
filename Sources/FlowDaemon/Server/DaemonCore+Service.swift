import Logging
import UVKit

#if canImport(Glibc)
import Glibc
#endif

/// The daemon as a service (docs/service.md): the socket the service manager passed, and what the
/// daemon tells it — `READY=1`, `STATUS=`, `STOPPING=1`, watchdog pings. Only `run()` calls these;
/// an embedded daemon has no service session and notifies nobody.
extension DaemonCore {
    /// The listener: on the socket the service manager passed (which then becomes the daemon's socket path, so
    /// spawned screens are told the right one), else bound at the configured path.
    mutating func makeListener(on uv: UVLoop, service: ServiceEnvironment,
                      onConnection: @escaping (UVPipe) -> Void) throws(ListenerError) -> UnixSocketListener {
        guard let passed = service.passedSocket else {
            return try UnixSocketListener.listen(loop: uv, path: configuration.socketPath, onConnection: onConnection)
        }
        let listener = try UnixSocketListener.listen(loop: uv, passed: passed, onConnection: onConnection)
        logger.info("serving the socket the service manager passed", metadata: [
            "path": "\(passed.path.isEmpty ? "(unnamed)" : passed.path)", "descriptor": "\(passed.descriptor)",
            "name": "\(service.listenName ?? "-")",
        ])
        if !passed.path.isEmpty, passed.path != configuration.socketPath {
            logger.notice("the passed socket is not the default socket path; clients looking there will not find flowd", metadata: [
                "passed": "\(passed.path)", "default": "\(configuration.socketPath)",
            ])
        }
        if !passed.path.isEmpty { configuration.socketPath = passed.path }
        return listener
    }

    /// Starts talking to the service manager when it listens (`$NOTIFY_SOCKET`): the watchdog pings begin now.
    mutating func startService(_ environment: ServiceEnvironment) {
        guard let address = environment.notifySocket else { return }
        let sink: NotifySocketSink
        do {
            sink = try NotifySocketSink(address: address)
        } catch {
            logger.warning("cannot open the service manager's notification socket; not notifying", metadata: [
                "NOTIFY_SOCKET": "\(address)", "error": "\(error)",
            ])
            return
        }
        startService(sink: sink, watchdogMicroseconds: environment.watchdogMicroseconds, closeSink: sink.close)
        logger.debug("notifying the service manager", metadata: [
            "NOTIFY_SOCKET": "\(address)", "watchdog_ms": "\(service?.notifier.watchdogPeriod.map { "\($0)" } ?? "off")",
        ])
    }

    /// Starts talking to a service manager through `sink` (the embedded daemon's tests pass a recorder);
    /// `watchdogMicroseconds` is its `WATCHDOG_USEC`. The pings run on the loop's clock.
    package mutating func startService(sink: any ServiceNotifySink, watchdogMicroseconds: UInt64?, closeSink: @escaping () -> Void = {}) {
        loop.assertOnLoop()
        let notifier = ServiceNotifier(sink: sink, appName: app?.name, watchdogMicroseconds: watchdogMicroseconds, logger: logger)
        service = ServiceSession(notifier: notifier, now: loop.now, closeSink: closeSink)
        armDeadlineTimer()
    }

    /// The one point where the daemon is ready: it listens and its app started (whatever `startApp()` restores
    /// comes before this). Tells the service manager `READY=1` with the first status. Called once, by `run()`.
    package mutating func becameReady() {
        loop.assertOnLoop()
        guard let service else { return }
        service.notifier.ready(serviceStatus, now: loop.now)
        logger.debug("told the service manager READY=1")
    }

    /// A step of the graceful shutdown began: `STOPPING=1` the first time, and the new status.
    mutating func serviceShutdownStep(message: String) {
        service?.notifier.stopping(serviceStatus, reason: message, now: loop.now)
    }

    /// The end of a loop iteration: the status goes out if it changed (rate-limited; a held one arms a timer).
    mutating func serviceIterationEnded() {
        guard let service else { return }
        if let due = service.notifier.update(serviceStatus, now: loop.now) {
            service.statusHeld(until: due)
        }
    }

    /// The session's timers that passed: a watchdog ping, a held status.
    mutating func expireService(now: UInt64) {
        if service?.expire(now: now) == true { serviceIterationEnded() }
    }

    /// The loop is ending: stop the pings, close the socket.
    mutating func stopService() {
        service?.close()
        service = nil
    }

    /// What `STATUS=` reports now.
    var serviceStatus: ServiceStatus {
        ServiceStatus(
            phase: phase, flows: runtime?.liveFlowCount ?? 0, screens: runtime?.liveScreenCount ?? 0,
            connections: connections.count, screenProcesses: survival.spawned.count)
    }
}
