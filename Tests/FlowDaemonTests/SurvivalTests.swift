import DemoApps
import FlowApp
import FlowDaemon
import FlowDaemonTesting
import FlowKit
import FlowWire
import Foundation
import Testing

/// Where the user is survives a crashed screen process, a dropped host and a hung one
/// (docs/restore.md), proved on the embedded daemon with a manual clock.
@Suite("Screens survive")
struct SurvivalTests {
    typealias Body = Flowd_V1_Envelope.OneOf_Body
    static let host = EmbeddedDaemonTests.host
    static let ackAll = EmbeddedDaemonTests.ackAll
    static let press = EmbeddedDaemonTests.press

    static func places(_ bodies: [Body]) -> [Flowd_V1_Place] { bodies.compactMap { if case .place(let p) = $0 { p } else { nil } } }
    static func updates(_ bodies: [Body]) -> [Flowd_V1_Update] { bodies.compactMap { if case .update(let u) = $0 { u } else { nil } } }

    /// The deep-stack app with every item screen spawned under `policy`.
    static func spawnedDeepStack(_ policy: RestartPolicy, _ configure: (inout DaemonConfiguration) -> Void = { _ in }) throws -> EmbeddedDaemon {
        let app = try EmbeddedDaemonTests.app("deep-stack")
            .withAllScreens(.spawn(executable: "item-screen", restart: policy), kinds: ["item"])
        return EmbeddedDaemon(app: app) {
            $0.exitWhenAppFinishes = false
            configure(&$0)
        }
    }

    /// Handshakes `child` and acknowledges what it is sent; returns it.
    @discardableResult
    static func join(_ child: EmbeddedChild) -> [Body] {
        let answer = child.connection.hello(role: .screenHost, name: "item-screen", token: child.token)
        ackAll(answer, child.connection)
        return answer
    }

    /// A spawned screen placed and dismissed in the same input (a push, then the flow finishes) gets no
    /// process: one started for it would be retired before its `Welcome`, a fatal handshake error for a
    /// host (ScreenKit exits 69). The delivery asks for the process; the driver skips it
    /// (`AppCore.awaitsProcess`).
    @Test func aSpawnedScreenDismissedInTheInputThatPlacedItGetsNoProcess() throws {
        let app = App(name: "push-and-finish", modules: [ItemScreen.self], placer: windowRoot.withNavigationEmbedding()) {
            PushAndFinishFlow()
        }.withAllScreens(.spawn(executable: "item-screen", restart: .standard), kinds: ["item"])
        let daemon = EmbeddedDaemon(app: app) { $0.exitWhenAppFinishes = false }
        let root = try #require(daemon.children.first)
        let place = try #require(Self.places(Self.join(root)).first)
        Self.press(0, place.screenID, root.connection)
        #expect(daemon.children.count == 1, "the pushed screen was gone before its process could start: none was")
        #expect(daemon.daemon.stats().flows == 0, "the flow finished")
        #expect(daemon.daemon.invariantViolations().isEmpty)
    }

    // MARK: Restart

    @Test func aCrashedScreenProcessIsReplacedInItsPlaceWithItsCurrentStateAndTheFlowIsNotTold() throws {
        let daemon = try Self.spawnedDeepStack(.restart(maxRestarts: 3, withinMilliseconds: 10_000))
        let root = try #require(daemon.children.first)
        let rootPlace = try #require(Self.places(Self.join(root)).first)
        // Push a second item: the root is covered, its state and placement changed since its Place.
        Self.press(0, rootPlace.screenID, root.connection)
        let covered = root.connection.readBodies()
        let change = try #require(covered.lazy.compactMap { if case .placementChanged(let c) = $0 { c } else { nil } }.first)
        Self.ackAll(covered, root.connection)
        let top = try #require(daemon.children.last)
        Self.join(top)
        root.crash()
        #expect(daemon.daemon.stats().screensHeld == 0, "restarted at once: a new process is on its way")
        let replacement = try #require(daemon.children.last)
        #expect(replacement !== top && replacement.screen == root.screen, "a new process for the same screen")
        let again = replacement.connection.hello(role: .screenHost, name: "item-screen", token: replacement.token)
        let place = try #require(Self.places(again).first)
        #expect(place.screenID == rootPlace.screenID)
        #expect(place.serial > rootPlace.serial, "serials continue")
        #expect(!place.animated)
        #expect(place.placement.visible == false, "still covered by the pushed item, as before the crash")
        #expect(place.placement == change.placement, "where it was last told it is")
        Self.ackAll(again, replacement.connection)
        #expect(daemon.daemon.stats().flows == 1, "the flow was not told")
        #expect(daemon.daemon.stats().screenRestarts == 1)
        #expect(daemon.daemon.invariantViolations().isEmpty)
        // Its handlers keep working: the restarted root can still push.
        Self.press(0, place.screenID, replacement.connection)
        #expect(daemon.daemon.stats().screens == 3)
    }

    @Test func commandsSentWhileTheProcessIsDownFollowTheReplaceInOrder() throws {
        // The mirror app updates both of its screens on every press: one of them crashes between.
        let app = try EmbeddedDaemonTests.app("mirror")
            .withAllScreens(.spawn(executable: "mirror-screen", restart: .standard), kinds: ["item", "tutorial"])
        let daemon = EmbeddedDaemon(app: app) { $0.exitWhenAppFinishes = false }
        let children = daemon.children
        try #require(children.count == 2)
        let first = Self.places(Self.join(children[0]))[0]
        Self.join(children[1])
        // children[1]'s process dies; its connection closes before the exit is reaped.
        children[1].connection.hangUp()
        #expect(daemon.daemon.stats().screensHeld == 1, "held: the exit status decides")
        Self.press(0, first.screenID, children[0].connection)
        Self.ackAll(children[0].connection.readBodies(), children[0].connection)
        children[1].crash()
        let replacement = try #require(daemon.children.last)
        let bodies = replacement.connection.hello(role: .screenHost, token: replacement.token).dropFirst()
        guard case .place(let place)? = bodies.first, case .update(let update)? = bodies.dropFirst().first else {
            Issue.record("expected the re-place, then the update made while it was down: \(bodies)")
            return
        }
        #expect(update.serial == place.serial + 1)
    }

    @Test func aProcessThatExitsCleanlyIsNotRestarted() throws {
        let daemon = try Self.spawnedDeepStack(.standard)
        let root = try #require(daemon.children.first)
        Self.join(root)
        root.connection.hangUp()
        root.exit()
        #expect(daemon.children.count == 1, "no new process")
        #expect(daemon.daemon.stats().flows == 0, "the flow lost its screen, as with no policy")
    }

    @Test func aScreenThatCrashesAtStartUpIsRestartedNTimesThenTheFlowIsTold() throws {
        let daemon = try Self.spawnedDeepStack(.restart(maxRestarts: 3, withinMilliseconds: 5_000))
        for attempt in 0...3 {
            let child = try #require(daemon.children.last)
            #expect(daemon.children.count == attempt + 1)
            daemon.advanceTime(by: 10)
            child.crash()  // before its handshake
        }
        #expect(daemon.children.count == 4, "the first process and 3 restarts, no more")
        #expect(daemon.daemon.stats().restartsGivenUp == 1)
        #expect(daemon.daemon.stats().flows == 0, "then the flow is told: its initial screen is lost")
        guard case .ended(.screenLost)? = daemon.daemon.appOutcome else {
            Issue.record("expected the app to end with screenLost, got \(String(describing: daemon.daemon.appOutcome))")
            return
        }
        #expect(daemon.finish().isClean, "\(daemon.finish())")
    }

    @Test func restartsOutsideTheWindowDoNotCount() throws {
        let daemon = try Self.spawnedDeepStack(.restart(maxRestarts: 1, withinMilliseconds: 1_000))
        for _ in 0..<5 {
            daemon.advanceTime(by: 1_001)
            try #require(daemon.children.last).crash()
        }
        #expect(daemon.daemon.stats().screenRestarts == 5)
        #expect(daemon.daemon.stats().flows == 1)
    }

    // MARK: Resume

    static func welcome(_ bodies: [Body]) -> Flowd_V1_Welcome? {
        if case .welcome(let welcome)? = bodies.first { return welcome }
        return nil
    }

    static func error(_ bodies: [Body]) -> Flowd_V1_Error? {
        bodies.lazy.compactMap { if case .error(let e) = $0 { e } else { nil } }.first
    }

    @Test func aDroppedHostThatComesBackWithItsTokenGetsItsScreensBackAndTheFlowIsNotTold() throws {
        let daemon = try EmbeddedDaemonTests.deepStack { $0.exitWhenAppFinishes = false }
        let (host, answer) = Self.host(daemon, ["item"])
        let token = try #require(Self.welcome(answer)?.resumeToken)
        #expect(!token.isEmpty && Self.welcome(answer)?.resumeGraceMs == 5_000)
        let root = Self.places(answer)[0]
        Self.ackAll(answer, host)
        Self.press(0, root.screenID, host)
        let pushed = host.readBodies()
        Self.ackAll(pushed, host)
        let top = Self.places(pushed)[0]
        let flows = daemon.daemon.stats().flows
        host.hangUp()
        #expect(daemon.daemon.stats().screensHeld == 2)
        daemon.advanceTime(by: 4_000)
        let back = daemon.connect()
        let resumed = back.hello(role: .screenHost, name: "embedded-host", provides: ["item"], resumeToken: token)
        let welcome = try #require(Self.welcome(resumed))
        #expect(welcome.resumed)
        #expect(!welcome.resumeToken.isEmpty && welcome.resumeToken != token, "a new token for the next drop")
        let places = Self.places(resumed)
        #expect(places.map(\.screenID) == [root.screenID, top.screenID], "every screen, bottom first")
        #expect(places[0].placement.visible == false && places[1].placement.visible == true)
        #expect(places.allSatisfy { !$0.animated })
        #expect(places[0].serial > root.serial)
        Self.ackAll(resumed, back)
        #expect(daemon.daemon.stats().flows == flows && daemon.daemon.stats().hostsResumed == 1)
        #expect(daemon.daemon.invariantViolations().isEmpty)
        // Past the old grace period nothing is lost: the screens are on the new host.
        daemon.advanceTime(by: 2_000)
        #expect(daemon.daemon.stats().screens == 2)
        Self.press(0, top.screenID, back)
        #expect(daemon.daemon.stats().screens == 3, "the resumed host's outputs reach the flow")
    }

    @Test func wrongReusedStaleAndForeignTokensAreRefusedAndChangeNothing() throws {
        let daemon = try EmbeddedDaemonTests.deepStack { $0.exitWhenAppFinishes = false }
        let (host, answer) = Self.host(daemon, ["item"])
        let token = try #require(Self.welcome(answer)?.resumeToken)
        Self.ackAll(answer, host)
        host.hangUp()
        let run = String(token.prefix { $0 != "." })
        for (bad, words) in [("\(run).0000", "not one this flowd issued"), ("feedfacefeedface.0001", "another flowd run")] {
            let refused = daemon.connect().hello(role: .screenHost, resumeToken: bad)
            #expect(Self.error(refused)?.code == .resumeRefused)
            #expect(Self.error(refused)?.fatal == true)
            #expect(Self.error(refused)?.message.contains(words) == true, "\(String(describing: Self.error(refused)))")
            #expect(daemon.daemon.stats().screensHeld == 1, "nothing changed")
        }
        let debug = daemon.connect().hello(role: .debug, resumeToken: token)
        #expect(Self.error(debug)?.code == .unexpectedMessage, "only screen hosts resume")
        let good = daemon.connect()
        #expect(Self.welcome(good.hello(role: .screenHost, provides: ["item"], resumeToken: token))?.resumed == true)
        let reused = daemon.connect().hello(role: .screenHost, resumeToken: token)
        #expect(Self.error(reused)?.message.contains("already used") == true)
    }

    @Test func aTokenWhoseGraceEndedIsRefusedAsExpired() throws {
        let daemon = try EmbeddedDaemonTests.deepStack { $0.exitWhenAppFinishes = false }
        let (host, answer) = Self.host(daemon, ["item"])
        let token = try #require(Self.welcome(answer)?.resumeToken)
        Self.ackAll(answer, host)
        host.hangUp()
        daemon.advanceTime(by: 5_000)
        #expect(daemon.daemon.stats().resumesExpired == 1 && daemon.daemon.stats().screensHeld == 0)
        let late = daemon.connect().hello(role: .screenHost, resumeToken: token)
        #expect(Self.error(late)?.code == .resumeRefused)
        #expect(Self.error(late)?.message.contains("grace period ended") == true)
    }

    @Test func aTokenPresentedBeforeTheDaemonSawTheDropClosesTheOldConnectionAndResumes() throws {
        let daemon = try EmbeddedDaemonTests.deepStack { $0.exitWhenAppFinishes = false }
        let (host, answer) = Self.host(daemon, ["item"])
        let token = try #require(Self.welcome(answer)?.resumeToken)
        Self.ackAll(answer, host)
        // The host thinks its connection dropped; the daemon has not seen it yet.
        let back = daemon.connect()
        let resumed = back.hello(role: .screenHost, provides: ["item"], resumeToken: token)
        #expect(Self.welcome(resumed)?.resumed == true)
        #expect(Self.places(resumed).count == 1)
        let told = host.readBodies().compactMap { if case .shutdown(let m) = $0 { m } else { nil } }
        #expect(told.count == 1, "the old connection is told with Shutdown before it is closed (protocol.md §11)")
        #expect(told.first?.message.contains("resume token") == true, "\(told.first?.message ?? "")")
        #expect(host.isClosed, "the old connection was closed")
        #expect(daemon.daemon.stats().screens == 1 && daemon.daemon.stats().flows == 1)
    }

    @Test func aResumedHostKeepsItsPlaceAmongTheProvidersOfItsKinds() throws {
        let daemon = try EmbeddedDaemonTests.deepStack { $0.exitWhenAppFinishes = false }
        let (first, answer) = Self.host(daemon, ["item"])
        let token = try #require(Self.welcome(answer)?.resumeToken)
        let root = try #require(Self.places(answer).first)
        Self.ackAll(answer, first)
        let (second, _) = Self.host(daemon, ["item"])
        first.hangUp()
        let back = daemon.connect()
        Self.ackAll(back.hello(role: .screenHost, provides: ["item"], resumeToken: token), back)
        Self.press(0, root.screenID, back)
        #expect(Self.places(back.readBodies()).count == 1, "the pushed item goes to the resumed host, first in line as before")
        #expect(second.readBodies().isEmpty)
    }

    @Test func aHostThatSaysGoodbyeIsNotWaitedForAndItsScreensGoToTheNextHost() throws {
        let daemon = try EmbeddedDaemonTests.deepStack { $0.exitWhenAppFinishes = false }
        let (host, answer) = Self.host(daemon, ["item"])
        Self.ackAll(answer, host)
        host.send(.shutdown(Flowd_V1_Shutdown()))
        daemon.run()
        #expect(daemon.daemon.stats().screensHeld == 0, "not held for a resume")
        #expect(daemon.daemon.stats().screens == 1 && daemon.daemon.stats().flows == 1, "waiting for the next host")
        let (next, again) = Self.host(daemon, ["item"])
        #expect(Self.places(again).count == 1)
        Self.ackAll(again, next)
    }

    @Test func aScreenLeftByItsHostIsReportedWhenNoHostTakesItWithinTheHostWait() throws {
        let daemon = try EmbeddedDaemonTests.deepStack { $0.exitWhenAppFinishes = false; $0.hostWaitMilliseconds = 2_000 }
        let (host, answer) = Self.host(daemon, ["item"])
        Self.ackAll(answer, host)
        host.send(.shutdown(Flowd_V1_Shutdown()))
        daemon.run()
        daemon.advanceTime(by: 1_999)
        #expect(daemon.daemon.stats().screensWithoutHost == 0)
        daemon.advanceTime(by: 1)
        #expect(daemon.daemon.stats().screensWithoutHost == 1, "NO_HOST: nobody provides its kind")
        #expect(daemon.daemon.stats().screens == 1, "and it keeps waiting")
    }

    @Test func noGraceMeansNothingIsHeldForAResume() throws {
        let daemon = try EmbeddedDaemonTests.deepStack { $0.exitWhenAppFinishes = false; $0.resumeGraceMilliseconds = 0 }
        let (host, answer) = Self.host(daemon, ["item"])
        #expect(Self.welcome(answer)?.resumeToken == "", "no token when nothing is kept")
        Self.ackAll(answer, host)
        host.hangUp()
        #expect(daemon.daemon.stats().screensHeld == 0)
        #expect(daemon.daemon.stats().screens == 1, "it waits for the next host of its kind")
    }

    @Test func withTheOldRuleAHostThatSaysGoodbyeLosesItsScreensAtOnce() throws {
        let app = try EmbeddedDaemonTests.app("deep-stack").losingScreensWithTheirHost(["item"])
        let daemon = EmbeddedDaemon(app: app) { $0.exitWhenAppFinishes = false }
        let (host, answer) = Self.host(daemon, ["item"])
        Self.ackAll(answer, host)
        host.send(.shutdown(Flowd_V1_Shutdown()))
        daemon.run()
        #expect(daemon.daemon.stats().screens == 0, "lost at once")
    }

    // MARK: Watchdog

    @Test func aHostThatLeavesAcksAndPingsUnansweredIsDisconnectedAndMayResume() throws {
        let daemon = try EmbeddedDaemonTests.deepStack { $0.exitWhenAppFinishes = false; $0.hangTimeoutMilliseconds = 400 }
        let (host, answer) = Self.host(daemon, ["item"])
        let token = try #require(Self.welcome(answer)?.resumeToken)
        // Acks nothing and answers nothing.
        var pings = 0
        for _ in 0..<8 {
            daemon.advanceTime(by: 100)
            pings += host.readBodies().count { if case .ping = $0 { true } else { false } }
        }
        #expect(pings == 1, "pinged once its Place stayed unacknowledged for two ticks")
        #expect(daemon.daemon.stats().hostsHung == 1)
        #expect(host.isClosed)
        #expect(daemon.daemon.stats().screensHeld == 1, "held: it may resume")
        let back = daemon.connect()
        #expect(Self.welcome(back.hello(role: .screenHost, provides: ["item"], resumeToken: token))?.resumed == true)
    }

    @Test func aHostThatAnswersPingsIsNotHungEvenIfItAcksLate() throws {
        let daemon = try EmbeddedDaemonTests.deepStack { $0.exitWhenAppFinishes = false; $0.hangTimeoutMilliseconds = 400 }
        let (host, answer) = Self.host(daemon, ["item"])
        for _ in 0..<15 {
            daemon.advanceTime(by: 100)
            for body in host.readBodies() {
                if case .ping(let ping) = body { host.send(.pong(.with { $0.nonce = ping.nonce })) }
            }
        }
        #expect(daemon.daemon.stats().hostsHung == 0)
        Self.ackAll(answer, host)
        #expect(daemon.daemon.stats().pendingAcks == 0)
    }

    @Test func aHostThatKeepsSendingIsNotHungEvenBeforeItsPongArrives() throws {
        // A busy host's Pong waits behind its own outputs; whatever it sends shows it is alive.
        let daemon = try EmbeddedDaemonTests.deepStack {
            $0.exitWhenAppFinishes = false
            $0.hangTimeoutMilliseconds = 400
            $0.ackTimeoutMilliseconds = 10_000
        }
        let (host, answer) = Self.host(daemon, ["item"])
        let root = try #require(Self.places(answer).first)
        for _ in 0..<20 {
            daemon.advanceTime(by: 100)
            _ = host.readBodies()
            Self.press(3, root.screenID, host)  // a button the item screen does not have: nothing changes
        }
        #expect(daemon.daemon.stats().hostsHung == 0, "heard from all along")
        for _ in 0..<8 { daemon.advanceTime(by: 100) }
        #expect(daemon.daemon.stats().hostsHung == 1, "silent: hung")
    }

    @Test func aHungSpawnedProcessIsKilledAndRestarted() throws {
        let daemon = try Self.spawnedDeepStack(.standard) { $0.hangTimeoutMilliseconds = 400 }
        let child = try #require(daemon.children.first)
        _ = child.connection.hello(role: .screenHost, token: child.token)  // no ack, no pong
        for _ in 0..<8 where !child.wasKilled { daemon.advanceTime(by: 100) }
        #expect(child.wasKilled)
        child.crash()  // SIGKILL
        #expect(daemon.children.count == 2, "restarted by its policy")
        #expect(daemon.daemon.stats().flows == 1)
    }
}

/// Review probes (wip-review).
@Suite("Screens survive: review probes")
struct SurvivalReviewTests {
    @Test func aHungAttachedHostIsSentShutdownHung() throws {
        let daemon = try EmbeddedDaemonTests.deepStack { $0.exitWhenAppFinishes = false; $0.hangTimeoutMilliseconds = 400 }
        let (host, _) = SurvivalTests.host(daemon, ["item"])
        var bodies: [Flowd_V1_Envelope.OneOf_Body] = []
        for _ in 0..<8 {
            daemon.advanceTime(by: 100)
            bodies += host.readBodies()
        }
        #expect(daemon.daemon.stats().hostsHung == 1)
        #expect(bodies.contains { if case .shutdown(let s) = $0 { s.reason == .hung } else { false } }, "\(bodies)")
    }

    @Test func aHungSpawnedProcessThatDoesNotDieAtOnceIsFoundHungOnce() throws {
        let daemon = try SurvivalTests.spawnedDeepStack(.standard) { $0.hangTimeoutMilliseconds = 400 }
        let child = try #require(daemon.children.first)
        _ = child.connection.hello(role: .screenHost, token: child.token)  // no ack, no pong
        for _ in 0..<8 where !child.wasKilled { daemon.advanceTime(by: 100) }
        #expect(child.wasKilled)
        // SIGKILL is pending (the process is in uninterruptible sleep, or the loop is slow to reap it).
        for _ in 0..<20 { daemon.advanceTime(by: 100) }
        #expect(daemon.daemon.stats().hostsHung == 1)
    }
}

/// On its screen's button, pushes a second screen and finishes in the same input: the second screen
/// is placed and dismissed in one call.
final class PushAndFinishFlow: Flow {
    typealias RequiredContext = NavigationStack
    typealias Result = String

    func start(_ flow: FlowContext<PushAndFinishFlow>) {
        let item = flow.show(ItemScreen.self, CardState(title: "Item", buttons: ["Push and finish"]))
        item.onOutput { _ in
            flow.show(ItemScreen.self, CardState(title: "Gone at once", buttons: []), .pushed(in: flow.context))
            flow.finish("done")
        }
    }
}
