import FlowKit
import Foundation
import Testing

/// Restarts and resumes on the delivery value alone: a lost host's screens held, re-placed from
/// their current state and placement, old ack clocks ignored.
@Suite struct ScreenDeliverySurvivalTests {
    typealias T = ScreenDeliveryTests
    static let owner = FlowID(rawValue: 1)
    static let covered = Placement(path: [.window], index: 0, isTopMost: false, isVisible: false)

    static func places(_ actions: [ScreenDelivery.Action]) -> [(PlaceCommand, UInt64)] {
        actions.compactMap { if case .send(let o, _) = $0, case .place(let p) = o.command { (p, o.serial) } else { nil } }
    }

    /// A screen spawned under `policy`, live on host 9 with its Place acknowledged.
    static func live(_ policy: RestartPolicy) -> ScreenDelivery {
        var delivery = ScreenDelivery(ackTimeout: 100)
        _ = delivery.apply(T.place(), route: .spawn(policy), now: 0)
        _ = delivery.spawned(T.screen, host: 9, now: 0)
        _ = delivery.hostJoined(9, provides: [], now: 0)
        _ = delivery.ack(T.screen, serial: 1, from: 9)
        return delivery
    }

    @Test func theRePlaceCarriesTheCurrentStateAndPlacementAndTheNextSerial() {
        var delivery = Self.live(.standard)
        _ = delivery.apply(.update(T.screen, state: Data("{\"n\":2}".utf8), owner: Self.owner), route: .attached, now: 1)
        _ = delivery.apply(.placementChanged(T.screen, placement: Self.covered, change: .covered, owner: Self.owner), route: .attached, now: 1)
        // Connection first, exit status later: held until the status is known.
        #expect(delivery.hostLost(9, now: 2).isEmpty)
        #expect(delivery.screens[T.screen]?.phase == .awaitingExit(host: 9))
        _ = delivery.apply(.update(T.screen, state: Data("{\"n\":3}".utf8), owner: Self.owner), route: .attached, now: 3)
        let restart = delivery.processExited(9, abnormally: true, now: 4)
        #expect(restart == [.restarted(T.screen, kind: "item", attempt: 1, policy: .standard), .spawn(T.screen, kind: "item")])
        _ = delivery.spawned(T.screen, host: 10, now: 5)
        let sent = delivery.hostJoined(10, provides: [], now: 5)
        let place = Self.places(sent)
        #expect(place.count == 1)
        #expect(place.first?.0.state == Data("{\"n\":2}".utf8), "the state as the old host last had it")
        #expect(place.first?.0.placement == Self.covered)
        #expect(place.first?.0.animated == false)
        #expect(place.first?.1 == 4, "the serial after the three commands the old host was sent")
        #expect(T.sends(sent).map(\.1) == [4, 5], "then the update made while it was down")
    }

    @Test func theExitMayComeBeforeTheConnectionCloses() {
        var delivery = Self.live(.standard)
        #expect(delivery.processExited(9, abnormally: true, now: 1).isEmpty, "its connection may still hold outputs to read")
        #expect(delivery.hostLost(9, now: 2).contains(.spawn(T.screen, kind: "item")))
    }

    @Test func aCleanExitOrNoPolicyLosesTheScreen() {
        var clean = Self.live(.standard)
        _ = clean.hostLost(9, now: 1)
        #expect(clean.processExited(9, abnormally: false, now: 2) == [.screenLost(T.screen, kind: "item", host: 9)])
        var never = Self.live(.never)
        #expect(never.hostLost(9, now: 1) == [.screenLost(T.screen, kind: "item", host: 9)])
        // A process that said goodbye (or broke the protocol) is not restarted, whatever its exit.
        var goodbye = Self.live(.standard)
        #expect(goodbye.hostLost(9, now: 1, resumable: false) == [.screenLost(T.screen, kind: "item", host: 9)])
    }

    @Test func oldAckClocksDoNotRemoveAScreenThatMovedToANewHost() {
        var delivery = Self.live(.standard)
        _ = delivery.apply(.update(T.screen, state: Data(), owner: Self.owner), route: .attached, now: 10)  // deadline 110 on host 9
        _ = delivery.hostLost(9, now: 20)
        _ = delivery.processExited(9, abnormally: true, now: 20)
        _ = delivery.spawned(T.screen, host: 10, now: 90)
        _ = delivery.hostJoined(10, provides: [], now: 90)  // the re-place's deadline: 190
        #expect(!delivery.expire(now: 150).contains { if case .screenLost = $0 { true } else { false } })
        #expect(delivery.expire(now: 190).contains(.screenLost(T.screen, kind: "item", host: 10)), "the new host's own clock still counts")
    }

    @Test func aScreenDismissedWhileItsHostIsAwayIsForgotten() {
        var delivery = ScreenDelivery(ackTimeout: 100, resumeGrace: 500)
        _ = delivery.apply(T.place(), route: .attached, now: 0)
        _ = delivery.hostJoined(1, provides: ["item"], now: 0)
        #expect(delivery.hostLost(1, now: 1, resumable: true) == [.detached(host: 1, screens: 1)])
        let dismissed = delivery.apply(.dismiss(T.screen, animated: true, reason: .flowFinished), route: .attached, now: 2)
        #expect(dismissed.actions == [.dismissalCompleted(T.screen, .hostLost)])
        let resumed = delivery.resume(1, as: 2, provides: ["item"], now: 3)
        #expect(resumed == [.resumed(host: 2, from: 1, screens: 0)], "nothing to re-place")
    }

    @Test func aDroppedHostNotBackInTimeLeavesItsScreensToTheNextHostOfTheirKind() {
        var delivery = ScreenDelivery(ackTimeout: nil, resumeGrace: 500)
        _ = delivery.apply(T.place(), route: .attached, now: 0)
        _ = delivery.hostJoined(1, provides: ["item"], now: 0)
        _ = delivery.hostLost(1, now: 100, resumable: true)
        #expect(delivery.nextDeadline == 600)
        #expect(delivery.expire(now: 599).isEmpty)
        #expect(delivery.expire(now: 600) == [.resumeExpired(host: 1, screens: 1), .waitingForHost(T.screen, kind: "item")])
        #expect(delivery.resume(1, as: 2, provides: [], now: 601).isEmpty, "too late")
        #expect(delivery.screens[T.screen]?.phase == .waitingForHost)
        // The next host of the kind gets it again, as a restart would: a Place, not animated.
        let joined = delivery.hostJoined(3, provides: ["item"], now: 700)
        guard case .send(let outgoing, to: 3)? = joined.first, case .place(let place) = outgoing.command else {
            Issue.record("expected a Place to host 3, got \(joined)")
            return
        }
        #expect(place.screen == T.screen && !place.animated)
        #expect(delivery.invariantViolations().isEmpty)
    }

    @Test func aKindLostWithItsHostIsLostWhenTheGraceEnds() {
        var delivery = ScreenDelivery(ackTimeout: nil, resumeGrace: 500)
        delivery.kindsLostWithTheirHost = ["item"]
        _ = delivery.apply(T.place(), route: .attached, now: 0)
        _ = delivery.hostJoined(1, provides: ["item"], now: 0)
        _ = delivery.hostLost(1, now: 100, resumable: true)
        #expect(delivery.expire(now: 600) == [.resumeExpired(host: 1, screens: 1), .screenLost(T.screen, kind: "item", host: 1)])
    }

    @Test func aHostThatLeavesForGoodWhileAnotherProvidesTheKindHandsItsScreensOverAtOnce() {
        var delivery = ScreenDelivery(ackTimeout: nil, resumeGrace: nil)
        _ = delivery.hostJoined(1, provides: ["item"], now: 0)
        _ = delivery.apply(T.place(), route: .attached, now: 0)
        _ = delivery.hostJoined(2, provides: ["item"], now: 0)
        let lost = delivery.hostLost(1, now: 10, resumable: false)
        guard case .send(let outgoing, to: 2)? = lost.first, case .place(let place) = outgoing.command else {
            Issue.record("expected a Place to host 2, got \(lost)")
            return
        }
        #expect(place.screen == T.screen)
        #expect(delivery.invariantViolations().isEmpty)
    }

    @Test func policiesParse() {
        #expect(RestartPolicy(parsing: "never") == .never)
        #expect(RestartPolicy(parsing: "5/10") == .restart(maxRestarts: 5, withinMilliseconds: 10_000))
        #expect(RestartPolicy(parsing: "3/2.5s") == .restart(maxRestarts: 3, withinMilliseconds: 2_500))
        #expect(RestartPolicy(parsing: "4") == .restart(maxRestarts: 4, withinMilliseconds: 10_000))
        for bad in ["", "x", "-1/10", "5/0", "5/", "5/10/2"] { #expect(RestartPolicy(parsing: bad) == nil, "\(bad)") }
    }
}

/// Review probes (wip-review).
@Suite struct ScreenDeliveryResumeReviewTests {
    typealias T = ScreenDeliveryTests

    @Test func aScreenPlacedWhileItsOnlyHostIsAwayGoesToItWhenItResumes() {
        var delivery = ScreenDelivery(ackTimeout: nil, resumeGrace: 500)
        _ = delivery.hostJoined(1, provides: ["item"], now: 0)
        #expect(delivery.hostLost(1, now: 1, resumable: true) == [.detached(host: 1, screens: 0)])
        // The flow places a screen of the kind while its only host is away: it waits.
        #expect(delivery.apply(T.place(), route: .attached, now: 2).actions.isEmpty)
        #expect(delivery.waitingScreens["item"] == [T.screen])
        let resumed = delivery.resume(1, as: 2, provides: ["item"], now: 3)
        #expect(ScreenDeliverySurvivalTests.places(resumed).count == 1, "the waiting screen goes to the resumed host: \(resumed)")
        #expect(delivery.waitingScreens.isEmpty)
    }

    @Test func aResumedHostThatNoLongerProvidesAKindIsNotGivenItsScreens() {
        var delivery = ScreenDelivery(ackTimeout: nil, resumeGrace: 500)
        _ = delivery.hostJoined(1, provides: ["item", "other"], now: 0)
        _ = delivery.hostLost(1, now: 1, resumable: true)
        _ = delivery.resume(1, as: 2, provides: ["item"], now: 3)
        // §19: "The host's provides are taken as in a fresh Hello".
        let placed = delivery.apply(T.place(kind: "other"), route: .attached, now: 4)
        #expect(placed.actions.isEmpty, "host 2 does not provide `other`: \(placed.actions)")
    }
}
