import DemoApps
import FlowApp
@testable import FlowDaemon
import FlowDaemonTesting
import FlowKit
import FlowWire
import Foundation
import Testing

/// Every timer of the daemon runs on its loop's injected clock: the embedded daemon moves it and each
/// timer fires exactly when it should, with no wall clock waited on.
@Suite("Timers on the loop's clock")
struct ClockTimerTests {
    /// A retired screen process that does not exit gets SIGTERM after the exit grace, then SIGKILL
    /// after as long again; once it exits nothing is left.
    @Test func aRetiredProcessThatStaysIsSignalledOnTheClock() throws {
        let app = try EmbeddedDaemonTests.app("deep-stack").withAllScreens(.spawn(executable: "item-screen"), kinds: ["item"])
        let daemon = EmbeddedDaemon(app: app) {
            $0.spawnExitGraceMilliseconds = 300
            $0.exitWhenAppFinishes = false
        }
        let child = try #require(daemon.children.first)
        let answer = child.connection.hello(role: .screenHost, name: "spawned", token: child.token)
        EmbeddedDaemonTests.ackAll(answer, on: child.connection)
        let place = try #require(answer.compactMap { if case .place(let m) = $0 { m } else { nil } }.first)
        EmbeddedDaemonTests.press(2, on: place.screenID, from: child.connection)
        EmbeddedDaemonTests.ackAll(child.connection.readBodies(), on: child.connection)
        #expect(child.retiredBecause != nil)
        daemon.advanceTime(by: 299)
        #expect(child.signals.isEmpty, "within its grace")
        daemon.advanceTime(by: 1)
        #expect(child.signals == [SIGTERM])
        daemon.advanceTime(by: 299)
        #expect(child.signals == [SIGTERM])
        daemon.advanceTime(by: 1)
        #expect(child.signals == [SIGTERM, SIGKILL])
        child.crash()
        daemon.advanceTime(by: 1_000)
        #expect(child.signals == [SIGTERM, SIGKILL], "nothing is sent once it exited")
        #expect(daemon.finish().isClean, "\(daemon.finish())")
    }

    /// A process that exits within its grace is never signalled.
    @Test func aProcessThatExitsInTimeIsNotSignalled() throws {
        let app = try EmbeddedDaemonTests.app("deep-stack").withAllScreens(.spawn(executable: "item-screen"), kinds: ["item"])
        let daemon = EmbeddedDaemon(app: app) { $0.spawnExitGraceMilliseconds = 300 }
        let child = try #require(daemon.children.first)
        _ = child.connection.hello(role: .screenHost, token: child.token)
        daemon.shutdown()
        child.connection.hangUp()
        daemon.advanceTime(by: 200)
        child.exit()
        daemon.advanceTime(by: 1_000)
        #expect(child.signals.isEmpty)
        #expect(daemon.phase == .stopped)
    }

    final class RecordingSink: ServiceNotifySink {
        var messages: [String] = []
        func send(_ message: String) throws { messages.append(message) }
        var pings: Int { messages.count { $0 == "WATCHDOG=1" } }
    }

    /// The service watchdog pings every half of `WATCHDOG_USEC` on the loop's clock, and a status held
    /// back by the rate limit goes out when its time comes.
    @Test func theServiceWatchdogAndAHeldStatusRunOnTheClock() throws {
        let daemon = EmbeddedDaemon(app: try EmbeddedDaemonTests.app("deep-stack")) { $0.exitWhenAppFinishes = false }
        let sink = RecordingSink()
        daemon.daemon.startService(sink: sink, watchdogMicroseconds: 2_000_000)
        daemon.daemon.becameReady()
        #expect(sink.messages.first?.hasPrefix("READY=1\nSTATUS=") == true)
        daemon.advanceTime(by: 999)
        #expect(sink.pings == 0)
        daemon.advanceTime(by: 1)
        #expect(sink.pings == 1, "half the service manager's interval")
        daemon.advanceTime(by: 2_000)
        #expect(sink.pings == 3)

        // A change within a second of the last status is held, then sent at its time.
        let statuses = { sink.messages.filter { $0.hasPrefix("STATUS=") } }
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        #expect(statuses().last?.contains("1 connection") == true, "the first change in a second goes out at once: \(statuses())")
        let before = statuses().count
        _ = daemon.connect()
        #expect(statuses().count == before, "held: the last status went out less than a second ago")
        daemon.advanceTime(by: 1_000)
        #expect(statuses().count == before + 1)
        #expect(statuses().last?.contains("2 connections") == true, "\(statuses())")
    }

    /// A peer that begins a frame after its handshake and goes silent is cut off with FRAME_TIMEOUT,
    /// between one and two frame timeouts after its last byte.
    @Test func aStalledFrameTimesOutOnTheClock() throws {
        let daemon = EmbeddedDaemon(app: try EmbeddedDaemonTests.app("deep-stack")) { $0.frameTimeoutMilliseconds = 500 }
        let (host, _) = EmbeddedDaemonTests.host(daemon)
        host.sendBytes([40, 0, 0, 0, 8])  // a 40-byte frame, one byte of it
        daemon.advanceTime(by: 499)
        #expect(host.readBodies().isEmpty && !host.isClosed)
        daemon.advanceTime(by: 501)
        let error = try #require(host.readBodies().compactMap { if case .error(let e) = $0 { e } else { nil } }.first)
        #expect(error.code == .frameTimeout && error.fatal)
        daemon.run()
        #expect(host.isClosed)
    }

    /// Runs `body` with this process's file size limit at `size` bytes: a write past it fails with
    /// EFBIG, as one on a full disk does (SIGXFSZ ignored, as flowd ignores it).
    static func withFileSizeLimit(_ size: UInt64, _ body: () -> Void) {
        signal(SIGXFSZ, SIG_IGN)
        var saved = rlimit()
        getrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved)
        var tight = saved
        tight.rlim_cur = rlim_t(size)
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &tight)
        body()
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved)
    }

    /// A journal write that fails keeps its inputs and is tried again a second later on the loop's
    /// clock; once the disk has room the inputs are committed. (The file size limit stands in for a
    /// full disk: writes past it fail with EFBIG.)
    @Test func aFailedJournalWriteIsRetriedOnTheClock() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clock-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("j.journal").path
        let daemon = try EmbeddedDaemon(app: try EmbeddedDaemonTests.app("deep-stack"), statePath: path) { $0.exitWhenAppFinishes = false }
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let place = try #require(answer.compactMap { if case .place(let m) = $0 { m } else { nil } }.first)
        let committed = daemon.daemon.stats().journaledInputs
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64)

        Self.withFileSizeLimit(size) { EmbeddedDaemonTests.press(0, on: place.screenID, from: host) }
        EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
        #expect(daemon.daemon.stats().journalPending > 0, "the write failed; the input waits in memory")
        #expect(daemon.daemon.stats().journaledInputs == committed)

        daemon.advanceTime(by: DaemonJournal.retryMilliseconds - 1)
        #expect(daemon.daemon.stats().journalPending > 0, "not before the retry is due")
        daemon.advanceTime(by: 1)
        #expect(daemon.daemon.stats().journalPending == 0, "tried again on the clock, with room: committed")
        #expect(daemon.daemon.stats().journaledInputs > committed)
    }

    /// While the journal cannot write, a `Pong` waits for it (a Pong says the inputs before it are
    /// durable, docs/protocol.md §10), and once what waits in memory reaches the backlog limit the
    /// next input is refused with LIMIT_EXCEEDED and not applied. The write tried again with room
    /// commits what waited and lets the Pong go.
    @Test func whileTheJournalCannotWriteAPingWaitsAndPastItsBacklogInputsAreRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clock-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("j.journal").path
        let daemon = try EmbeddedDaemon(app: try EmbeddedDaemonTests.app("deep-stack"), statePath: path) {
            $0.exitWhenAppFinishes = false
            $0.journalBacklogLimit = 1  // the first input that waits fills it
        }
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let first = try #require(answer.compactMap { if case .place(let m) = $0 { m } else { nil } }.first)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64)

        Self.withFileSizeLimit(size) { EmbeddedDaemonTests.press(0, on: first.screenID, from: host) }
        let pushed = host.readBodies()
        EmbeddedDaemonTests.ackAll(pushed, on: host)
        let second = try #require(pushed.compactMap { if case .place(let m) = $0 { m } else { nil } }.first, "the push is applied")
        #expect(daemon.daemon.stats().journalPending == 1, "the write failed; the input waits in memory")

        // A Ping: no Pong while the input before it is not journaled.
        var ping = Flowd_V1_Ping()
        ping.nonce = 9
        let pingSeq = host.send(.ping(ping))
        #expect(!host.readBodies().contains { if case .pong = $0 { true } else { false } }, "no Pong while the journal cannot write")

        // Past the backlog: refused, not applied.
        EmbeddedDaemonTests.press(0, on: second.screenID, from: host)
        let refused = host.readBodies()
        let error = try #require(refused.compactMap { if case .error(let m) = $0 { m } else { nil } }.first, "\(refused)")
        #expect(error.code == .limitExceeded && !error.fatal && error.screenID == second.screenID)
        #expect(error.message.contains("flowd cannot journal") && error.message.contains("was not applied"), "\(error.message)")
        #expect(!refused.contains { if case .place = $0 { true } else { false } }, "nothing placed")
        #expect(daemon.daemon.stats().journalPending == 1 && daemon.daemon.stats().screens == 2)

        // Room again: the retry commits what waited, and the Pong goes.
        daemon.advanceTime(by: DaemonJournal.retryMilliseconds)
        #expect(daemon.daemon.stats().journalPending == 0)
        let frames = host.readFrames()
        #expect(frames.contains { frame in if case .pong(let pong) = frame.body { pong.nonce == 9 && frame.replyTo == pingSeq } else { false } },
                "the Pong once the input is journaled: \(frames)")
    }
}
