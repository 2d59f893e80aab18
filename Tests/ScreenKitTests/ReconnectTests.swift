import FlowWire
import Foundation
import ScreenKit
import Testing

/// Hosts that connected to the named socket come back after a drop (docs/protocol.md §19),
/// against a fake daemon that listens on a real socket path.
@Suite("ScreenHost reconnects and resumes")
struct ReconnectTests {
    /// A host that provides `tutorial` and writes what happens to its screens into `log`:
    /// `+5 Welcome` when placed, `-5 resumed` when dismissed (with the reason).
    private func connect(
        _ daemon: ListeningFakeDaemon, log: Recorder<String>, reconnects: Recorder<ReconnectEvent>,
        policy: ReconnectPolicy? = ReconnectPolicy()
    ) throws -> ScreenHost {
        let host = try ScreenHost.connect(path: daemon.path, name: "resumer", provides: ["tutorial"], reconnect: policy)
        host.register(Tutorial.self) { screen in
            let id = screen.id
            log.append("+\(id) \(screen.state.title)")
            screen.onDismiss { log.append("-\(id) \($0.reason)") }
        }
        host.onReconnect = reconnects.append
        return host
    }

    /// What a host did against a fake daemon's scripts, run to its end.
    private struct Outcome {
        var exit: ExitReason
        var log: [String]
        var reconnects: [ReconnectEvent]
        var daemon: ListeningFakeDaemon
        var host: ScreenHost
    }

    /// Connects a host to a fake daemon playing `scripts` and runs it until the session ends;
    /// every script must have run as written.
    private func run(
        _ scripts: [ListeningFakeDaemon.Script], policy: ReconnectPolicy? = ReconnectPolicy(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Outcome {
        let daemon = try ListeningFakeDaemon(scripts)
        let log = Recorder<String>(), reconnects = Recorder<ReconnectEvent>()
        let host = try connect(daemon, log: log, reconnects: reconnects, policy: policy)
        let exit = try host.run()
        #expect(daemon.waitUntilDone(), sourceLocation: sourceLocation)
        #expect(daemon.failures == [], sourceLocation: sourceLocation)
        return Outcome(exit: exit, log: log.values, reconnects: reconnects.values, daemon: daemon, host: host)
    }

    /// The first connection: Welcome with token `tok-1`, screen 5 placed and acked, then `end`.
    private static func firstConnection(then end: @escaping @Sendable (FakePeer) throws -> Void = { _ in })
        -> ListeningFakeDaemon.Script
    {
        { peer in
            try peer.welcome(token: "tok-1")
            try peer.place(5, state: Tutorial.State.welcome)
            try peer.expectAck(5, serial: 1)
            try end(peer)
        }
    }

    @Test("after end of stream the host says Hello with the last token, forgets its screens, and serves the Place that follows")
    func resumesAfterEndOfStream() throws {
        let run = try run([
            Self.firstConnection(),
            { peer in
                try peer.welcome(token: "tok-2", resumed: true, connectionID: 8)
                try peer.place(5, state: Tutorial.State(title: "Again", buttons: []), serial: 3)
                try peer.expectAck(5, serial: 3)
                try peer.shutdown(.appFinished)
            },
        ])
        #expect(run.exit == .shutdown(.appFinished))
        #expect(run.daemon.hellos.map(\.resumeToken) == ["", "tok-1"])
        #expect(run.daemon.hellos.map(\.provides) == [["tutorial"], ["tutorial"]])
        #expect(run.daemon.hellos.map(\.name) == ["resumer", "resumer"])
        #expect(run.log == ["+5 Welcome", "-5 resumed", "+5 Again"])
        #expect(run.host.daemon.connectionID == 8)
        #expect(run.reconnects == [
            .dropped(.connectionClosed, screens: 1, path: run.daemon.path),
            .reconnected(connectionID: 8, resumed: true, attempts: 1),
        ])
    }

    @Test("Shutdown(HUNG) is a drop, not an ending: the host resumes")
    func resumesAfterHung() throws {
        let run = try run([
            Self.firstConnection { try $0.shutdown(.hung, message: "no Pong within 1000 ms") },
            { peer in
                try peer.welcome(token: "tok-2", resumed: true)
                try peer.shutdown(.appFinished)
            },
        ])
        #expect(run.exit == .shutdown(.appFinished))
        #expect(run.daemon.hellos.map(\.resumeToken) == ["", "tok-1"])
        #expect(run.log == ["+5 Welcome", "-5 resumed"], "screen 5 was dismissed meanwhile: no Place")
        #expect(run.reconnects.first == .dropped(.shutdown(.hung), screens: 1, path: run.daemon.path))
    }

    @Test("after RESUME_REFUSED the old screens are lost and the host connects again without a token")
    func freshStartAfterRefusal() throws {
        let run = try run([
            Self.firstConnection(),
            { peer in try peer.refuseResume() },
            { peer in
                try peer.welcome(token: "tok-3", connectionID: 9)
                try peer.place(6, state: Tutorial.State.welcome)
                try peer.expectAck(6, serial: 1)
                try peer.shutdown(.appFinished)
            },
        ])
        #expect(run.exit == .shutdown(.appFinished))
        #expect(run.daemon.hellos.map(\.resumeToken) == ["", "tok-1", ""])
        #expect(run.log == ["+5 Welcome", "-5 connectionLost", "+6 Welcome"])
        #expect(run.reconnects == [
            .dropped(.connectionClosed, screens: 1, path: run.daemon.path),
            .resumeRefused(message: "unknown resume token"),
            .reconnected(connectionID: 9, resumed: false, attempts: 2),
        ])
    }

    @Test("Shutdown(DAEMON_EXITING) is an ending: no reconnection")
    func endingShutdownDoesNotReconnect() throws {
        let run = try run([Self.firstConnection { try $0.shutdown(.daemonExiting) }])
        #expect(run.exit == .shutdown(.daemonExiting))
        #expect(run.daemon.hellos.count == 1)
        #expect(run.reconnects.isEmpty)
        #expect(run.log == ["+5 Welcome"])
    }

    @Test("a daemon that sends no resume token keeps nothing: end of stream ends the session at once")
    func noTokenNoReconnection() throws {
        let run = try run([{ peer in try peer.welcome(token: "") }])
        #expect(run.exit == .connectionClosed)
        #expect(run.reconnects.isEmpty)
    }

    @Test("reconnect: nil turns it off")
    func switchedOff() throws {
        let run = try run([Self.firstConnection()], policy: nil)
        #expect(run.exit == .connectionClosed)
        #expect(run.reconnects.isEmpty)
    }

    @Test("nobody listening past the limit: the host gives up and run() returns .connectionClosed")
    func givesUp() throws {
        let policy = ReconnectPolicy(initialDelayMilliseconds: 5, maximumDelayMilliseconds: 20, giveUpAfterMilliseconds: 150)
        // That it gave up is what the exit reason and the last reconnect event say; how soon is a
        // benchmark's question, not a test's (the machine's speed varies).
        let run = try run([Self.firstConnection()], policy: policy)
        #expect(run.exit == .connectionClosed)
        #expect(run.host.exitReason == .connectionClosed)
        #expect(!run.host.isReconnecting)
        guard case .gaveUp(let attempts, let lastError) = run.reconnects.last else {
            Issue.record("expected gaveUp last, got \(run.reconnects)")
            return
        }
        #expect(attempts >= 2, "5, 10, 20, 20, ... ms apart within 150 ms (at least two even on a loaded machine)")
        #expect(lastError.code == .connect)
        #expect(run.log == ["+5 Welcome"], "screens are not dismissed when the session ends")
    }

    @Test("outputs while reconnecting throw .reconnecting, not fatal; pollOnce returns nil meanwhile")
    func outputWhileReconnecting() throws {
        let daemon = try ListeningFakeDaemon([
            Self.firstConnection(),
            { peer in
                try peer.welcome(token: "tok-2", resumed: true)
                try peer.shutdown(.appFinished)
            },
        ])
        let log = Recorder<String>(), reconnects = Recorder<ReconnectEvent>()
        let host = try connect(daemon, log: log, reconnects: reconnects)
        let screens = Recorder<HostedScreen<Tutorial>>()
        host.register(Tutorial.self) { screens.append($0) }

        while !host.isReconnecting {
            #expect(try host.pollOnce(timeoutMilliseconds: 5_000) == nil)
        }
        let screen = try #require(screens.values.first)
        #expect(host.exitReason == nil)
        #expect {
            try screen.send(.didPressSkip)
        } throws: { error in
            let error = try #require(error as? ScreenKitError)
            return error.code == .reconnecting && !error.isFatal
        }
        #expect(try host.run() == .shutdown(.appFinished))
        #expect(screen.dismissal == Dismissal(reason: .resumed, animated: false))
    }

    @Test("ping() across a drop pings again on the new connection; the resumed Place is handled before it returns")
    func pingAcrossReconnection() throws {
        let daemon = try ListeningFakeDaemon([
            { peer in
                try peer.welcome(token: "tok-1")
                _ = try peer.receive("Ping")  // and drop it unanswered
            },
            { peer in
                try peer.welcome(token: "tok-2", resumed: true)
                try peer.place(5, state: Tutorial.State.welcome, serial: 2)
                let ping = try peer.receive("Ping")
                guard case .ping(let body) = ping.body else { return }
                try peer.pong(body.nonce, replyTo: ping.seq)
                try peer.expectAck(5, serial: 2)
                try peer.shutdown(.appFinished)
            },
        ])
        let log = Recorder<String>(), reconnects = Recorder<ReconnectEvent>()
        let host = try connect(daemon, log: log, reconnects: reconnects)

        try host.ping()
        #expect(log.values == ["+5 Welcome"])
        #expect(try host.run() == .shutdown(.appFinished))
        #expect(daemon.waitUntilDone())
        #expect(daemon.failures == [])
    }
}

@Suite("ReconnectSchedule")
struct ReconnectScheduleTests {
    @Test("waits 25 ms, then doubles up to 500 ms, and gives up at the grace plus the margin")
    func backoff() {
        let start = ContinuousClock.now
        var schedule = ReconnectSchedule(policy: ReconnectPolicy(), graceMilliseconds: 2_000, now: start)
        #expect(schedule.nextAttempt == start + .milliseconds(25))
        #expect(schedule.deadline == start + .milliseconds(3_000))
        #expect(!schedule.isDue(start))
        var waits: [Int64] = []
        var now = schedule.nextAttempt
        while schedule.failed(at: now) {
            waits.append((schedule.nextAttempt - now).components.seconds * 1_000
                + (schedule.nextAttempt - now).components.attoseconds / 1_000_000_000_000_000)
            now = schedule.nextAttempt
        }
        #expect(Array(waits.prefix(6)) == [50, 100, 200, 400, 500, 500])
        #expect(now == schedule.deadline, "the last try is at the deadline")
    }

    @Test("an explicit limit replaces the grace")
    func explicitLimit() {
        let start = ContinuousClock.now
        let schedule = ReconnectSchedule(
            policy: ReconnectPolicy(giveUpAfterMilliseconds: 100), graceMilliseconds: 60_000, now: start)
        #expect(schedule.deadline == start + .milliseconds(100))
    }
}
