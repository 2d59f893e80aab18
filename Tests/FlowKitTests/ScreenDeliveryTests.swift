import FlowKit
import Foundation
import Testing

/// The delivery rules on the value alone: events in, actions out, a clock passed by hand.
@Suite struct ScreenDeliveryTests {
    static let screen = ScreenID(rawValue: 7)
    static let placement = Placement(path: [.window], index: 0, isTopMost: true, isVisible: true)

    static func place(_ id: ScreenID = screen, kind: String = "item") -> ScreenCommand {
        .place(PlaceCommand(screen: id, kind: kind, state: Data("{}".utf8), placement: placement, owner: FlowID(rawValue: 1),
                            flowType: "F", animated: false))
    }

    static func sends(_ actions: [ScreenDelivery.Action]) -> [(UInt64, UInt64)] {
        actions.compactMap { if case .send(let outgoing, let host) = $0 { (host, outgoing.serial) } else { nil } }
    }

    @Test func anAttachedScreenWaitsForAHostOfItsKindWithItsCommandsInOrder() {
        var delivery = ScreenDelivery(ackTimeout: 100)
        #expect(delivery.apply(Self.place(), route: .attached, now: 0).actions.isEmpty)
        #expect(delivery.apply(.update(Self.screen, state: Data(), owner: FlowID(rawValue: 1)), route: .attached, now: 5).serial == 2)
        #expect(delivery.heldCommandCount == 2)
        #expect(delivery.nextDeadline == nil, "no ack clock without a host")
        #expect(delivery.hostJoined(1, provides: ["menu"], now: 10).isEmpty)
        let actions = delivery.hostJoined(2, provides: ["item"], now: 20)
        #expect(Self.sends(actions).map(\.0) == [2, 2])
        #expect(Self.sends(actions).map(\.1) == [1, 2])
        #expect(delivery.nextDeadline == 120, "the clock starts when a host takes them")
    }

    @Test func aSpawnedHostGetsItsCommandsAfterItsHandshake() {
        var delivery = ScreenDelivery(ackTimeout: 100)
        let placed = delivery.apply(Self.place(), route: .spawn(.never), now: 0)
        #expect(placed.actions == [.spawn(Self.screen, kind: "item")])
        #expect(delivery.spawned(Self.screen, host: 9, now: 1).isEmpty, "no frame before the handshake")
        #expect(delivery.apply(.update(Self.screen, state: Data(), owner: FlowID(rawValue: 1)), route: .attached, now: 2).actions.isEmpty)
        let joined = delivery.hostJoined(9, provides: [], now: 3)
        #expect(Self.sends(joined).map(\.1) == [1, 2])
        #expect(delivery.screens[Self.screen]?.phase == .live(host: 9))
    }

    /// The daemon starts a process after the delivery asked for it: a screen dismissed in between
    /// is forgotten at once (nothing was shown), and the process that comes up for it is retired.
    @Test func aScreenDismissedWhileItsProcessStartsRetiresTheProcess() {
        var delivery = ScreenDelivery(ackTimeout: 100)
        _ = delivery.apply(Self.place(), route: .spawn(.never), now: 0)
        let dismissed = delivery.apply(.dismiss(Self.screen, animated: false, reason: .flowFinished), route: .attached, now: 1)
        #expect(dismissed.actions == [.dismissalCompleted(Self.screen, .acknowledged)])
        let late = delivery.spawned(Self.screen, host: 9, now: 2)
        guard case .retire(9, let reason)? = late.first, late.count == 1 else {
            Issue.record("the late process is retired, not \(late)")
            return
        }
        #expect(reason.contains("dismissed"))
        #expect(delivery.screens.isEmpty && delivery.hostsAwaitingAcks.isEmpty)
    }

    /// A process's start-up and handshake are bounded by the handshake timeout, not the ack timeout:
    /// the ack clocks of its held commands start when they are sent.
    @Test func aSlowStartingSpawnedHostDoesNotTimeOutItsAcks() {
        var delivery = ScreenDelivery(ackTimeout: 100)
        _ = delivery.apply(Self.place(), route: .spawn(.never), now: 0)
        _ = delivery.spawned(Self.screen, host: 9, now: 1)
        #expect(delivery.nextAckDeadline == nil, "no ack clock while the process starts")
        #expect(delivery.expire(now: 250).isEmpty, "a start-up longer than the ack timeout removes nothing")
        #expect(Self.sends(delivery.hostJoined(9, provides: [], now: 300)).map(\.1) == [1])
        #expect(delivery.nextAckDeadline == 400, "the clock starts at the handshake")
        #expect(delivery.expire(now: 399).isEmpty)
        #expect(delivery.expire(now: 400).first == .ackTimedOut(Self.screen, kind: "item", serial: 1, host: 9))
    }

    @Test func aFailedSpawnLosesTheScreen() {
        var delivery = ScreenDelivery(ackTimeout: 100)
        _ = delivery.apply(Self.place(), route: .spawn(.never), now: 0)
        #expect(delivery.spawnFailed(Self.screen) == [.screenLost(Self.screen, kind: "item", host: nil)])
        #expect(delivery.screens.isEmpty)
    }

    @Test func acksCoverEarlierSerialsAndRefuseWhatWasNeverSent() {
        var delivery = ScreenDelivery(ackTimeout: 100)
        _ = delivery.hostJoined(1, provides: ["item"], now: 0)
        _ = delivery.apply(Self.place(), route: .attached, now: 0)
        _ = delivery.apply(.update(Self.screen, state: Data(), owner: FlowID(rawValue: 1)), route: .attached, now: 0)
        #expect(delivery.ack(Self.screen, serial: 3, from: 1).result == .unknownSerial(lastSent: 2))
        #expect(delivery.ack(Self.screen, serial: 2, from: 2).result == .notYourScreen)
        #expect(delivery.ack(Self.screen, serial: 2, from: 1).result == .accepted(kind: "item"))
        #expect(delivery.ack(Self.screen, serial: 1, from: 1).result == .stale)
        #expect(delivery.pendingAckCount == 0)
        #expect(delivery.expire(now: 1_000).isEmpty, "acknowledged commands do not time out")
    }

    /// Answered clocks leave the queue when their ack comes, not at their deadline: a burst of placed
    /// and acknowledged screens holds nothing, and the timer is not armed for clocks that stopped.
    @Test func answeredAckClocksLeaveTheQueueWithTheirAck() {
        var delivery = ScreenDelivery(ackTimeout: 100)
        _ = delivery.hostJoined(1, provides: ["item"], now: 0)
        let ids = (10..<20).map { ScreenID(rawValue: $0) }
        for id in ids { _ = delivery.apply(Self.place(id), route: .attached, now: 0) }
        #expect(delivery.nextAckDeadline == 100)
        // Acked out of order: the head's clock goes once the head is answered.
        #expect(delivery.ack(ids[1], serial: 1, from: 1).result == .accepted(kind: "item"))
        #expect(delivery.nextAckDeadline == 100, "the first is still unanswered")
        #expect(delivery.ack(ids[0], serial: 1, from: 1).result == .accepted(kind: "item"))
        for id in ids.dropFirst(2) { _ = delivery.ack(id, serial: 1, from: 1) }
        #expect(delivery.nextAckDeadline == nil, "every clock answered: none left to wake for")
        _ = delivery.apply(.update(ids[5], state: Data("1".utf8), owner: FlowID(rawValue: 1)), route: .attached, now: 50)
        #expect(delivery.nextAckDeadline == 150, "a new command starts a new clock")
        let expired = delivery.expire(now: 150)
        #expect(expired.first == .ackTimedOut(ids[5], kind: "item", serial: 2, host: 1), "an unanswered command still times out")
        #expect(expired.last == .screenLost(ids[5], kind: "item", host: 1))
    }

    @Test func aLateCommandRemovesTheScreenByForceAtItsDeadline() {
        var delivery = ScreenDelivery(ackTimeout: 100)
        _ = delivery.hostJoined(1, provides: ["item"], now: 0)
        _ = delivery.apply(Self.place(), route: .attached, now: 0)
        #expect(delivery.expire(now: 99).isEmpty)
        let expired = delivery.expire(now: 100)
        #expect(expired.first == .ackTimedOut(Self.screen, kind: "item", serial: 1, host: 1))
        #expect(expired.contains { if case .send(let o, 1) = $0, case .dismiss(_, _, .removed) = o.command { o.serial == 2 } else { false } })
        #expect(expired.last == .screenLost(Self.screen, kind: "item", host: 1))
        #expect(delivery.screens.isEmpty)
    }

    @Test func aDismissalCompletesOnItsAckItsDeadlineOrItsHostsLoss() {
        for ending in ["ack", "deadline", "host lost"] {
            var delivery = ScreenDelivery(ackTimeout: 100)
            _ = delivery.hostJoined(1, provides: ["item"], now: 0)
            _ = delivery.apply(Self.place(), route: .attached, now: 0)
            _ = delivery.ack(Self.screen, serial: 1, from: 1)
            let dismiss = delivery.apply(.dismiss(Self.screen, animated: true, reason: .flowFinished), route: .attached, now: 10)
            #expect(dismiss.serial == 2 && Self.sends(dismiss.actions).count == 1)
            #expect(delivery.apply(.update(Self.screen, state: Data(), owner: FlowID(rawValue: 1)), route: .attached, now: 11).serial == nil, "nothing after Dismiss")
            let actions: [ScreenDelivery.Action]
            switch ending {
            case "ack": actions = delivery.ack(Self.screen, serial: 2, from: 1).actions
            case "deadline": actions = delivery.expire(now: 110)
            default: actions = delivery.hostLost(1)
            }
            let expected: DismissOutcome = ending == "ack" ? .acknowledged : ending == "deadline" ? .timedOut : .hostLost
            #expect(actions.last == .dismissalCompleted(Self.screen, expected), "\(ending)")
            #expect(delivery.screens.isEmpty)
        }
    }

    @Test func dismissingAScreenNeverShownCompletesAtOnce() {
        var delivery = ScreenDelivery(ackTimeout: 100)
        _ = delivery.apply(Self.place(), route: .attached, now: 0)
        let dismissed = delivery.apply(.dismiss(Self.screen, animated: false, reason: .flowFinished), route: .attached, now: 1)
        #expect(dismissed.actions == [.dismissalCompleted(Self.screen, .acknowledged)])
        #expect(delivery.waitingScreens.isEmpty && delivery.heldCommandCount == 0)
        #expect(delivery.hostJoined(1, provides: ["item"], now: 2).isEmpty)
    }

    @Test func aHostLostLosesItsScreensOfKindsLostWithItAndRetiresNothingAttached() {
        var delivery = ScreenDelivery(ackTimeout: 100)
        delivery.kindsLostWithTheirHost = ["item"]
        _ = delivery.hostJoined(1, provides: ["item"], now: 0)
        _ = delivery.apply(Self.place(ScreenID(rawValue: 1)), route: .attached, now: 0)
        _ = delivery.apply(Self.place(ScreenID(rawValue: 2)), route: .attached, now: 0)
        let lost = delivery.hostLost(1)
        #expect(lost == [.screenLost(ScreenID(rawValue: 2), kind: "item", host: 1), .screenLost(ScreenID(rawValue: 1), kind: "item", host: 1)])
        #expect(delivery.hostLost(1).isEmpty)
    }

    @Test func aSpawnedHostIsRetiredWhenItsScreenIsDismissed() {
        var delivery = ScreenDelivery(ackTimeout: 100)
        _ = delivery.apply(Self.place(), route: .spawn(.never), now: 0)
        _ = delivery.spawned(Self.screen, host: 9, now: 0)
        _ = delivery.hostJoined(9, provides: [], now: 0)
        _ = delivery.apply(.dismiss(Self.screen, animated: false, reason: .flowFinished), route: .attached, now: 1)
        let actions = delivery.ack(Self.screen, serial: 2, from: 9).actions
        #expect(actions.first == .retire(host: 9, reason: "its screen \(Self.screen) was dismissed"))
        #expect(actions.last == .dismissalCompleted(Self.screen, .acknowledged))
    }

    @Test func deadlinesPassInOrderAgainstTheClockGiven() {
        var queue = DeadlineQueue<Int>(timeout: 10)
        queue.add(1, now: 0)
        queue.add(2, now: 5)
        #expect(queue.next == 10)
        #expect(queue.expired(now: 9).isEmpty)
        #expect(queue.expired(now: 15) == [1, 2])
        #expect(queue.next == nil && queue.count == 0)
    }
}
