import DemoApps
@testable import FlowDaemon
import FlowDaemonTesting
import Foundation
import Logging
import Testing

/// What flowd tells systemd and when, with a recording sink and a clock the test moves.
@Suite struct ServiceNotifierTests {
    /// The notifications sent, in order.
    final class RecordingSink: ServiceNotifySink {
        var messages: [String] = []
        var failing = false
        struct Refused: Error {}
        func send(_ message: String) throws {
            if failing { throw Refused() }
            messages.append(message)
        }
    }

    let sink = RecordingSink()
    let log = LogLines()

    func notifier(watchdogMicroseconds: UInt64? = nil) -> ServiceNotifier {
        ServiceNotifier(sink: sink, appName: "demo", watchdogMicroseconds: watchdogMicroseconds, logger: log.logger)
    }

    func serving(connections: Int) -> ServiceStatus {
        ServiceStatus(phase: .running, flows: 1, screens: 2, connections: connections)
    }

    @Test func readyOnceWithTheFirstStatus() {
        let notifier = notifier()
        #expect(notifier.update(serving(connections: 0), now: 0) == nil, "no status before READY=1")
        #expect(sink.messages.isEmpty)
        notifier.ready(serving(connections: 0), now: 5)
        notifier.ready(serving(connections: 0), now: 6)
        #expect(sink.messages == ["READY=1\nSTATUS=serving app demo: 1 flow, 2 screens, 0 connections"])
        #expect(notifier.isReady)
    }

    @Test func changesGoOutAtMostOncePerIntervalAndTheLastHeldOneFollows() {
        let notifier = notifier()
        notifier.ready(serving(connections: 0), now: 0)
        #expect(notifier.update(serving(connections: 0), now: 10) == nil, "unchanged: nothing")
        #expect(notifier.update(serving(connections: 1), now: 100) == 1_000, "too soon: held until 1 s after the last")
        #expect(notifier.update(serving(connections: 2), now: 500) == 1_000)
        #expect(notifier.holdsStatus)
        #expect(sink.messages.count == 1)
        // Its time came: the latest goes out, the intermediate one never does.
        #expect(notifier.update(serving(connections: 2), now: 1_000) == nil)
        #expect(sink.messages.last == "STATUS=serving app demo: 1 flow, 2 screens, 2 connections")
        #expect(sink.messages.count == 2)
        // A change undone before its time is not sent at all.
        #expect(notifier.update(serving(connections: 3), now: 1_100) == 2_000)
        #expect(notifier.update(serving(connections: 2), now: 1_200) == nil)
        #expect(!notifier.holdsStatus)
        #expect(notifier.update(serving(connections: 2), now: 5_000) == nil)
        #expect(sink.messages.count == 2)
        // Long after the last one: at once.
        #expect(notifier.update(serving(connections: 1), now: 5_000) == nil)
        #expect(sink.messages.last == "STATUS=serving app demo: 1 flow, 2 screens, 1 connection")
    }

    @Test func stoppingOnceThenEachShutdownStepAtOnce() {
        let notifier = notifier()
        notifier.ready(serving(connections: 1), now: 0)
        notifier.stopping(ServiceStatus(phase: .unwinding, flows: 2, screens: 3, connections: 1), reason: "app demo finished", now: 10)
        notifier.stopping(ServiceStatus(phase: .draining, connections: 1, screenProcesses: 2), reason: "", now: 20)
        #expect(sink.messages.dropFirst() == [
            "STOPPING=1\nSTATUS=shutting down (app demo finished): unwinding 2 flows, 3 screens",
            "STATUS=shutting down (app demo finished): waiting for 1 connection, 2 screen processes to close",
        ])
        #expect(notifier.isStopping)
        // Later counts are status updates, rate-limited as before.
        #expect(notifier.update(ServiceStatus(phase: .draining, connections: 0, screenProcesses: 2), now: 30) == 1_020)
    }

    @Test func watchdogPeriodIsHalfTheInterval() {
        #expect(notifier(watchdogMicroseconds: 200_000).watchdogPeriod == 100)
        #expect(notifier(watchdogMicroseconds: 10_000_000).watchdogPeriod == 5_000)
        #expect(notifier(watchdogMicroseconds: 1_000).watchdogPeriod == 1, "never a zero-length repeat")
        #expect(notifier().watchdogPeriod == nil)
        notifier(watchdogMicroseconds: 200_000).watchdogPing()
        #expect(sink.messages == ["WATCHDOG=1"])
    }

    @Test func aRefusingServiceManagerIsLoggedOnce() {
        let notifier = notifier(watchdogMicroseconds: 200_000)
        sink.failing = true
        notifier.ready(serving(connections: 0), now: 0)
        for _ in 0..<5 { notifier.watchdogPing() }
        #expect(notifier.failures == 6)
        #expect(log.lines.filter { $0.hasPrefix("<4>cannot notify the service manager") }.count == 1, "\(log.lines)")
    }

    @Test func statusLinesReadWell() {
        #expect(ServiceStatus(phase: .running, flows: 1, screens: 1, connections: 1, screenProcesses: 1).text(app: "launcher", shutdownReason: nil)
            == "serving app launcher: 1 flow, 1 screen, 1 connection, 1 screen process")
        #expect(ServiceStatus(phase: .running).text(app: nil, shutdownReason: nil) == "serving without an app: 0 flows, 0 screens, 0 connections")
        #expect(ServiceStatus(phase: .draining).text(app: "x", shutdownReason: nil) == "shutting down: waiting for 0 connections to close")
        #expect(ServiceStatus(phase: .stopped).text(app: "x", shutdownReason: "y") == "stopped")
    }

    @Test func anEmbeddedDaemonHasNoServiceSession() {
        // Only `run()` starts one, and only when NOTIFY_SOCKET was handed over: tests never notify a service manager.
        let embedded = EmbeddedDaemon(app: BuiltInApps.named("tutorial")!)
        let host = embedded.connect()
        _ = host.hello(role: .screenHost)
        #expect(!embedded.daemon.hasServiceSession)
        embedded.shutdown()
        host.hangUp()
        embedded.run()
        #expect(!embedded.daemon.hasServiceSession)
    }
}

/// An in-memory log: the lines a `JournalLogHandler` writes (priority prefix, message, metadata).
final class LogLines: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [String] = []

    /// A logger at trace level writing here.
    var logger: Logger {
        var logger = Logger(label: "test") { _ in
            JournalLogHandler { [self] text in lock.withLock { stored += text.split(separator: "\n").map(String.init) } }
        }
        logger.logLevel = .trace
        return logger
    }

    /// Every line so far.
    var lines: [String] { lock.withLock { stored } }
}
