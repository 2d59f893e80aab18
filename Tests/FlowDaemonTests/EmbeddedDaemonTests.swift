import DemoApps
import FlowApp
import FlowDaemon
import FlowDaemonTesting
import FlowKit
import FlowWire
import Foundation
import Testing

/// The daemon's delivery, timeout, loss and shutdown rules, proved on the embedded daemon: the same
/// `Daemon` as `flowd`, on fake connections and a manual clock, so no process is started and no
/// wall clock is waited on. The socket-level suites (IntegrationTests) prove the same through the
/// real binaries.
@Suite("Embedded daemon")
struct EmbeddedDaemonTests {
    /// The deep-stack demo app: item screens on an attached host; button 0 pushes one, 1 pushes 999, 2 finishes.
    static func deepStack(_ configure: (inout DaemonConfiguration) -> Void = { _ in }) throws -> EmbeddedDaemon {
        EmbeddedDaemon(app: try app("deep-stack"), configure: configure)
    }

    static func app(_ name: String) throws -> App {
        guard let app = BuiltInApps.named(name) else { throw AppMissing(name: name) }
        return app
    }

    struct AppMissing: Error { let name: String }

    /// A screen host providing `kinds`, handshaken.
    static func host(_ daemon: EmbeddedDaemon, provides kinds: [String] = ["item"]) -> (EmbeddedConnection, [Flowd_V1_Envelope.OneOf_Body]) {
        let connection = daemon.connect()
        let answer = connection.hello(role: .screenHost, name: "embedded-host", provides: kinds)
        return (connection, answer)
    }

    /// Acknowledges every screen command among `bodies`.
    static func ackAll(_ bodies: [Flowd_V1_Envelope.OneOf_Body], on connection: EmbeddedConnection) {
        for body in bodies {
            switch body {
            case .place(let m): connection.ack(m.screenID, serial: m.serial)
            case .update(let m): connection.ack(m.screenID, serial: m.serial)
            case .placementChanged(let m): connection.ack(m.screenID, serial: m.serial)
            case .dismiss(let m): connection.ack(m.screenID, serial: m.serial)
            default: break
            }
        }
    }

    static func press(_ button: Int, on screen: UInt64, from connection: EmbeddedConnection) {
        var output = Flowd_V1_Output()
        output.screenID = screen
        output.payload = .json(Data(#"{"didPressButton":{"index":\#(button)}}"#.utf8))
        connection.send(.output(output))
    }

    @Test func commandsAreHeldUntilAHostWithTheKindArrives() throws {
        let daemon = try Self.deepStack()
        #expect(daemon.daemon.delivery.heldCommandCount == 1, "the root item screen waits for a host")
        #expect(daemon.daemon.delivery.waitingScreens["item"]?.count == 1)
        let (other, _) = Self.host(daemon, provides: ["menu"])
        #expect(other.readBodies().isEmpty, "a host of another kind gets nothing")
        let (host, answer) = Self.host(daemon)
        guard case .welcome = answer.first, case .place(let place)? = answer.dropFirst().first else {
            Issue.record("expected Welcome then Place, got \(answer)")
            return
        }
        #expect(place.kind == "item" && place.serial == 1)
        #expect(daemon.daemon.delivery.heldCommandCount == 0)
        Self.ackAll(answer, on: host)
        #expect(daemon.daemon.delivery.pendingAckCount == 0)
    }

    @Test func aSpawnedHostGetsItsCommandsOnlyAfterItsHandshake() throws {
        let app = try Self.app("deep-stack").withAllScreens(.spawn(executable: "item-screen"), kinds: ["item"])
        let daemon = EmbeddedDaemon(app: app)
        let child = try #require(daemon.children.first)
        #expect(child.kind == "item" && child.executable == "item-screen")
        #expect(child.connection.readBodies().isEmpty, "nothing before Hello")
        #expect(daemon.daemon.delivery.heldCommandCount == 1)
        let wrong = daemon.connect()
        var sawError = false
        for body in wrong.hello(role: .screenHost, token: child.token) {
            if case .error(let error) = body { sawError = error.fatal }
        }
        #expect(sawError, "the token is only good on the spawned connection")
        let answer = child.connection.hello(role: .screenHost, name: "spawned", token: child.token)
        guard case .welcome = answer.first, case .place(let place)? = answer.dropFirst().first else {
            Issue.record("expected Welcome then Place, got \(answer)")
            return
        }
        #expect(place.screenID == child.screen?.rawValue)
        Self.ackAll(answer, on: child.connection)
        // Finishing dismisses the screen; the child is retired once the Dismiss is acknowledged.
        Self.press(2, on: place.screenID, from: child.connection)
        let dismiss = child.connection.readBodies()
        #expect(dismiss.contains { if case .dismiss = $0 { true } else { false } })
        #expect(child.retiredBecause == nil)
        Self.ackAll(dismiss, on: child.connection)
        #expect(child.retiredBecause?.contains("dismissed") == true)
        child.exit()
        #expect(daemon.finish().isClean, "\(daemon.finish())")
    }

    @Test func aSpawnThatFailsLosesTheScreenAndEndsTheFlow() throws {
        let app = try Self.app("deep-stack").withAllScreens(.spawn(executable: "missing"), kinds: ["item"])
        let daemon = EmbeddedDaemon(app: app, failingSpawns: ["item"]) { $0.exitWhenAppFinishes = false }
        #expect(daemon.children.isEmpty)
        #expect(daemon.daemon.stats().flows == 0, "the root flow lost its initial screen")
        guard case .ended(.screenLost)? = daemon.daemon.appOutcome else {
            Issue.record("the app should end with its screen lost, not \(String(describing: daemon.daemon.appOutcome))")
            return
        }
        #expect(daemon.finish().isClean, "\(daemon.finish())")
    }

    @Test func anUnacknowledgedCommandTimesOutAndTheScreenIsRemoved() throws {
        // No watchdog: this is about the ack timeout alone.
        let daemon = try Self.deepStack { $0.ackTimeoutMilliseconds = 500; $0.hangTimeoutMilliseconds = 0; $0.exitWhenAppFinishes = false }
        let (host, answer) = Self.host(daemon)
        guard case .place(let root)? = answer.dropFirst().first else { Issue.record("no Place: \(answer)"); return }
        Self.ackAll(answer, on: host)
        Self.press(0, on: root.screenID, from: host)
        let pushed = host.readBodies()
        #expect(pushed.count == 2, "a place for the new item and a placement change for the covered root: \(pushed)")
        daemon.advanceTime(by: 499)
        #expect(host.readBodies().isEmpty, "nothing happens before the deadline")
        daemon.advanceTime(by: 1)
        let late = host.readBodies()
        let errors = late.compactMap { if case .error(let e) = $0 { e } else { nil } }
        let dismissals = late.compactMap { if case .dismiss(let d) = $0 { d } else { nil } }
        #expect(errors.map(\.code) == [.ackTimeout, .ackTimeout], "one per late command: \(late)")
        #expect(dismissals.map(\.reason).allSatisfy { $0 == .removed })
        #expect(daemon.daemon.stats().flows == 0, "the root's screen was lost, so the flow ended")
        #expect(daemon.daemon.delivery.screens.isEmpty)
    }

    @Test func aHostLostWhileShowingLeavesItsScreensToTheNextHostOnceTheResumeGraceEnds() throws {
        let daemon = try Self.deepStack { $0.exitWhenAppFinishes = false; $0.resumeGraceMilliseconds = 3_000 }
        let (host, answer) = Self.host(daemon)
        Self.ackAll(answer, on: host)
        let placed = try #require(answer.compactMap { if case .place(let place) = $0 { place } else { nil } }.first)
        #expect(daemon.daemon.stats().screens == 1)
        host.hangUp()
        #expect(daemon.daemon.stats().screensHeld == 1, "held for the host to resume")
        daemon.advanceTime(by: 2_999)
        #expect(daemon.daemon.stats().screens == 1)
        daemon.advanceTime(by: 1)
        #expect(daemon.daemon.stats().screensHeld == 0)
        #expect(daemon.daemon.stats().resumesExpired == 1)
        #expect(daemon.daemon.stats().screens == 1, "it waits for the next host of its kind")
        #expect(daemon.daemon.stats().flows == 1, "the flow never heard of it")
        // The next host that provides the kind gets it again: the same screen, its state, not animated.
        let (next, again) = Self.host(daemon)
        let replaced = try #require(again.compactMap { if case .place(let place) = $0 { place } else { nil } }.first)
        #expect(replaced.screenID == placed.screenID && replaced.kind == placed.kind && replaced.state == placed.state)
        #expect(!replaced.animated)
        Self.ackAll(again, on: next)
        #expect(daemon.daemon.stats().pendingAcks == 0)
        #expect(daemon.daemon.invariantViolations().isEmpty)
    }

    @Test func anAppMayLoseAKindsScreensWithTheirHostOnceTheResumeGraceEnds() throws {
        let app = try Self.app("deep-stack").losingScreensWithTheirHost(["item"])
        let daemon = EmbeddedDaemon(app: app) { $0.exitWhenAppFinishes = false; $0.resumeGraceMilliseconds = 3_000 }
        let (host, answer) = Self.host(daemon)
        Self.ackAll(answer, on: host)
        host.hangUp()
        daemon.advanceTime(by: 3_000)
        #expect(daemon.daemon.stats().resumesExpired == 1)
        #expect(daemon.daemon.stats().screens == 0)
        #expect(daemon.daemon.stats().flows == 0, "the flow lost its initial screen")
        #expect(daemon.finish().isClean, "\(daemon.finish())")
    }

    @Test func aHostLostBetweenDismissAndAckCompletesTheDismissal() throws {
        let daemon = try Self.deepStack { $0.exitWhenAppFinishes = false }
        let (host, answer) = Self.host(daemon)
        guard case .place(let root)? = answer.dropFirst().first else { Issue.record("no Place: \(answer)"); return }
        Self.ackAll(answer, on: host)
        Self.press(2, on: root.screenID, from: host)
        let dismiss = host.readBodies()
        #expect(dismiss.contains { if case .dismiss = $0 { true } else { false } })
        #expect(daemon.daemon.delivery.screens.values.allSatisfy { $0.isDismissing })
        host.hangUp()
        #expect(daemon.daemon.delivery.screens.isEmpty, "the dismissal completed as host lost")
        #expect(daemon.finish().isClean, "\(daemon.finish())")
    }

    @Test func aHostThatStopsReadingIsCutAtTheWriteQueueLimit() throws {
        let daemon = try Self.deepStack { $0.writeQueueLimit = 1_024; $0.exitWhenAppFinishes = false }
        let (host, answer) = Self.host(daemon)
        Self.ackAll(answer, on: host)
        let (watcher, _) = (daemon.connect(), ())
        _ = watcher.hello(role: .debug, name: "slow-watcher")
        watcher.reads = false
        var ping = Flowd_V1_Ping()
        for nonce in 0..<200 {
            ping.nonce = UInt64(nonce)
            watcher.send(.ping(ping))
            if watcher.isClosed { break }
        }
        #expect(watcher.isClosed, "a reader that stopped is disconnected, never allowed to grow without bound")
        #expect(!host.isClosed, "and nobody else is")
    }

    @Test func aThousandDeepStackUnwindsTopMostFirst() throws {
        let daemon = try Self.deepStack { $0.exitWhenAppFinishes = false }
        let (host, answer) = Self.host(daemon)
        guard case .place(let root)? = answer.dropFirst().first else { Issue.record("no Place: \(answer)"); return }
        Self.ackAll(answer, on: host)
        Self.press(1, on: root.screenID, from: host)
        let pushes = host.readBodies()
        #expect(daemon.daemon.stats().screens == 1_000)
        Self.ackAll(pushes, on: host)
        Self.press(2, on: root.screenID, from: host)
        let unwinding = host.readBodies()
        let dismissed = unwinding.compactMap { if case .dismiss(let d) = $0 { d.screenID } else { nil } }
        #expect(dismissed.count == 1_000)
        #expect(dismissed == dismissed.sorted(by: >), "top-most first")
        #expect(!unwinding.contains { if case .placementChanged = $0 { true } else { false } }, "no screen is told it was uncovered on the way")
        Self.ackAll(unwinding, on: host)
        #expect(daemon.finish().screens == 0)
        #expect(daemon.daemon.stats().pendingAcks == 0)
    }

    @Test func shutdownGoesThroughItsPhasesInOrder() throws {
        let daemon = try Self.deepStack()
        let (host, answer) = Self.host(daemon)
        Self.ackAll(answer, on: host)
        #expect(daemon.phase == .running)
        daemon.shutdown()
        #expect(daemon.phase == .unwinding, "flows unwind while hosts are connected")
        let dismiss = host.readBodies()
        let reasons: [Flowd_V1_Dismiss.Reason] = dismiss.compactMap { if case .dismiss(let d) = $0 { d.reason } else { nil } }
        #expect(reasons == [.shutdown])
        host.reads = false
        Self.ackAll(dismiss, on: host)
        #expect(daemon.phase == .draining, "every flow unwound: Shutdown went out, the host has not read it yet")
        #expect(host.readBodies().contains { if case .shutdown = $0 { true } else { false } })
        host.reads = true
        daemon.run()
        #expect(daemon.phase == .stopped, "the host read everything; its connection closed")
        #expect(daemon.finish().isClean, "\(daemon.finish())")
    }

    @Test func shutdownWaitsForDismissalsSentBeforeIt() throws {
        let daemon = try Self.deepStack()
        let (host, answer) = Self.host(daemon)
        guard case .place(let root)? = answer.dropFirst().first else { Issue.record("no Place: \(answer)"); return }
        Self.ackAll(answer, on: host)
        Self.press(0, on: root.screenID, from: host)
        let pushed = host.readBodies()
        Self.ackAll(pushed, on: host)
        guard let top = pushed.compactMap({ if case .place(let p) = $0 { p.screenID } else { nil } }).first else {
            Issue.record("no push: \(pushed)")
            return
        }
        // The user pops the top screen; its Dismiss is not acknowledged yet when the shutdown begins.
        var navigation = Flowd_V1_UserNavigation()
        navigation.screenID = top
        navigation.action = .back(Flowd_V1_Back())
        host.send(.userNavigation(navigation))
        let popped = host.readBodies().compactMap { if case .dismiss(let d) = $0 { d } else { nil } }
        #expect(popped.map(\.screenID) == [top])
        daemon.shutdown()
        let unwinding = host.readBodies()
        Self.ackAll(unwinding, on: host)
        #expect(daemon.phase == .unwinding, "the popped screen's Dismiss is still unanswered")
        #expect(!host.readBodies().contains { if case .shutdown = $0 { true } else { false } }, "no Shutdown before its ack")
        host.ack(top, serial: popped[0].serial)
        #expect(daemon.phase != .unwinding)
        #expect(host.readBodies().contains { if case .shutdown = $0 { true } else { false } })
    }

    @Test func framesReadWithTheLastAckAreAnsweredBeforeShutdown() throws {
        let daemon = try Self.deepStack()
        let (host, answer) = Self.host(daemon)
        Self.ackAll(answer, on: host)
        daemon.shutdown()
        guard case .dismiss(let dismiss)? = host.readBodies().first else { Issue.record("no Dismiss"); return }
        // One write: the ack that completes the unwinding, then a ping.
        var bytes: [UInt8] = []
        var ack = Flowd_V1_Ack()
        ack.screenID = dismiss.screenID
        ack.serial = dismiss.serial
        try FrameEncoder.append(.ack(ack), seq: 10, to: &bytes)
        var ping = Flowd_V1_Ping()
        ping.nonce = 7
        try FrameEncoder.append(.ping(ping), seq: 11, to: &bytes)
        host.sendBytes(bytes)
        let after = host.readBodies()
        let pong = after.firstIndex { if case .pong(let p) = $0 { p.nonce == 7 } else { false } }
        let shutdown = after.firstIndex { if case .shutdown = $0 { true } else { false } }
        #expect(pong != nil && shutdown != nil && pong! < shutdown!, "Pong, then Shutdown: \(after)")
    }

    @Test func shutdownUnwindingEndsAtTheAckDeadlineWhenAHostIsSilent() throws {
        let daemon = try Self.deepStack { $0.ackTimeoutMilliseconds = 300; $0.shutdownGraceMilliseconds = 200 }
        let (host, answer) = Self.host(daemon)
        Self.ackAll(answer, on: host)
        host.reads = false
        daemon.shutdown()
        #expect(daemon.phase == .unwinding)
        daemon.advanceTime(by: 300)
        #expect(daemon.phase == .draining, "the silent host's dismissal timed out")
        daemon.advanceTime(by: 200)
        #expect(daemon.phase == .stopped, "the connection that did not close was force-closed after the grace period")
        #expect(host.isClosed)
    }

    @Test func shutdownWaitsForSpawnedChildrenToExit() throws {
        let app = try Self.app("deep-stack").withAllScreens(.spawn(executable: "item-screen"), kinds: ["item"])
        let daemon = EmbeddedDaemon(app: app)
        let child = try #require(daemon.children.first)
        Self.ackAll(child.connection.hello(role: .screenHost, token: child.token), on: child.connection)
        daemon.shutdown()
        Self.ackAll(child.connection.readBodies(), on: child.connection)
        child.connection.hangUp()
        #expect(daemon.phase == .draining, "connections are closed, but the child has not exited")
        child.exit()
        #expect(daemon.phase == .stopped)
        #expect(daemon.finish().isClean)
    }

    @Test func aHandshakeThatNeverComesIsCutAtItsDeadline() throws {
        let daemon = EmbeddedDaemon(app: nil) { $0.handshakeTimeoutMilliseconds = 100 }
        let silent = daemon.connect()
        daemon.advanceTime(by: 99)
        #expect(!silent.isClosed)
        daemon.advanceTime(by: 1)
        let bodies = silent.readBodies()
        #expect(bodies.contains { if case .error(let e) = $0 { e.code == .handshakeTimeout } else { false } }, "\(bodies)")
        daemon.run()
        #expect(daemon.finish().connections <= 1)
    }
}
