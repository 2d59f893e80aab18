import FlowWire
import FlowdTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A paused flowd loses nobody's place (docs/restore.md, "A paused daemon"): stopped with SIGSTOP
/// for longer than the ack timeout, the hang timeout and the resume grace, it reads what its peers
/// sent meanwhile before it judges any of them. The pause is real (the kernel stops the process in
/// `epoll_wait`, which then returns `EINTR`); only counts and outcomes are asserted.
@Suite("a paused daemon (socket level)", .serialized)
struct PausedDaemonTests {
    /// Stops flowd, runs `meanwhile`, sleeps `milliseconds` and lets flowd go on.
    static func pause(_ daemon: DaemonProcess, for milliseconds: UInt32, meanwhile: () throws -> Void = {}) throws {
        daemon.signal(SIGSTOP)
        defer { daemon.signal(SIGCONT) }
        try #require(waitUntilStopped(daemon.process.processIdentifier), "flowd did not stop")
        try meanwhile()
        usleep(milliseconds * 1_000)
    }

    @Test func anAckThatWaitedWhileFlowdWasStoppedIsNotLateAndTheScreenStays() throws {
        // Ack timeout 1 s and the watchdog at 0.5 s; flowd is stopped for 2.5 s with the ack in its socket.
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial", "--ack-timeout", "1", "--hang-timeout", "0.5"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["tutorial"])
        let first = try #require(try host.settle().compactMap(\.place).first)
        _ = try host.press(1, on: first.screenID)  // Next: pushes the second page
        let pushed = try host.ping()
        let second = try #require(pushed.compactMap(\.place).first, "the second page was placed")
        try Self.pause(daemon, for: 2_500) {
            try host.ackAll(pushed)
        }
        let after: [Flowd_V1_Envelope]
        do { after = try host.settle() } catch { Issue.record("flowd: \(daemon.logText)"); throw error }
        #expect(after.compactMap(\.error).isEmpty, "no ACK_TIMEOUT: \(after.compactMap(\.error).map(\.message))")
        #expect(after.compactMap(\.shutdown).isEmpty)
        #expect(daemon.process.isRunning)
        let stats = try SurvivalIntegrationTests.stats(daemon)
        #expect(stats["screens"] == 2 && stats["pendingAcks"] == nil && stats["hostsHung"] == nil, "\(stats)")
        #expect(!daemon.logText.contains("did not acknowledge"))
        #expect(daemon.logText.contains("flowd's loop could not run for"), "the pause is logged")
        // The place is where it was: back from the second page works as a person would expect.
        var navigation = Flowd_V1_UserNavigation()
        navigation.screenID = second.screenID
        navigation.action = .back(Flowd_V1_Back())
        try host.send(.userNavigation(navigation))
        #expect(try host.settle().compactMap(\.dismiss).map(\.screenID) == [second.screenID])
    }

    @Test func aHostThatResumedWhileFlowdWasStoppedGetsItsScreensBackPastTheGrace() throws {
        // Resume grace 1 s; the host comes back during a 2.5 s stop.
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial", "--stay-up", "--resume-grace", "1"])
        var host: RawClient? = try RawClient(path: daemon.socketPath)
        let welcome = try #require(try host?.handshake(provides: ["tutorial"]))
        let first = try #require(try host?.settle().compactMap(\.place).first)
        host = nil  // dropped, without Shutdown
        #expect(daemon.waitForLog("holding its screens for it to resume"))
        let back = try RawClient(path: daemon.socketPath)
        try Self.pause(daemon, for: 2_500) {
            // Connected in the listener's backlog; the Hello waits in the socket.
            _ = try back.send(RawClient.hello(provides: ["tutorial"], resumeToken: welcome.resumeToken))
        }
        let reply = try #require(try back.receive(), "flowd closed the resuming host")
        guard case .welcome(let resumed) = reply.body else {
            Issue.record("expected a Welcome, got \(String(describing: reply.body)); log: \(daemon.logText)")
            return
        }
        #expect(resumed.resumed)
        #expect(try back.settle().compactMap(\.place).map(\.screenID) == [first.screenID])
        #expect(!daemon.logText.contains("did not resume in time"))
    }

    @Test func anAppWhoseRootScreenIsLostKeepsItsJournalAndTheNextStartRestoresThePlace() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The tutorial's screens are lost with their host, at once: the root's first page among them.
        var daemon: DaemonProcess? = try DaemonProcess(
            arguments: ["--app", "tutorial", "--lose-with-host", "tutorial", "--resume-grace", "0"], directory: directory)
        var host: RawClient? = try RawClient(path: try #require(daemon?.socketPath))
        try host?.handshake(provides: ["tutorial"])
        let first = try #require(try host?.settle().compactMap(\.place).first)
        _ = try host?.press(1, on: first.screenID)  // Next: the second page
        let second = try #require(try host?.settle().compactMap(\.place).first)
        host = nil  // the host leaves for good
        #expect(daemon?.waitForExit() == 0, "the app ended with its root screen, and flowd with it")
        let log = daemon?.logText ?? ""
        #expect(log.contains("its journal is kept, so the next start restores where the user was"), "\(log)")
        daemon = nil
        // The next start, with the same journal: both pages, where the user was before the loss.
        let again = try DaemonProcess(arguments: ["--app", "tutorial", "--stay-up"], directory: directory)
        let next = try RawClient(path: again.socketPath)
        try next.handshake(provides: ["tutorial"])
        let places = try next.settle().compactMap(\.place)
        #expect(places.map(\.screenID) == [first.screenID, second.screenID], "both pages again, with their ids: \(again.logText)")
    }
}
