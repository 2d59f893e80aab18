import FlowKit
import Foundation
import Testing

/// The delivery's answers to what a host cannot take (issue 46), on the value alone: a command the
/// driver could not send, and a host that shows `maxScreensPerHost` screens.
@Suite struct ScreenDeliveryLimitTests {
    static let owner = FlowID(rawValue: 1)

    static func place(_ id: UInt64) -> ScreenCommand {
        ScreenDeliveryTests.place(ScreenID(rawValue: id))
    }

    @Test func anUpdateThatCouldNotBeSentRemovesTheScreenWithADismissAndNoAckTimeout() {
        var delivery = ScreenDelivery(ackTimeout: 100)
        _ = delivery.hostJoined(1, provides: ["item"], now: 0)
        let id = ScreenID(rawValue: 7)
        _ = delivery.apply(Self.place(7), route: .attached, now: 0)
        _ = delivery.ack(id, serial: 1, from: 1)
        let serial = delivery.apply(.update(id, state: Data(), owner: Self.owner), route: .attached, now: 1).serial
        #expect(serial == 2)
        let actions = delivery.undeliverable(id, host: 1, hostHasScreen: true)
        guard actions.count == 2, case .send(let outgoing, 1) = actions[0] else {
            Issue.record("a Dismiss to the host, then the screen lost: \(actions)")
            return
        }
        #expect(outgoing.command == .dismiss(id, animated: false, reason: .removed) && outgoing.serial == 3)
        #expect(actions[1] == .screenLost(id, kind: "item", host: 1))
        #expect(delivery.screens[id] == nil)
        #expect(delivery.expire(now: 1_000).isEmpty, "no ack timeout for the serial that was not sent")
    }

    @Test func aPlaceThatCouldNotBeSentLosesTheScreenWithoutADismiss() {
        var delivery = ScreenDelivery(ackTimeout: 100)
        _ = delivery.hostJoined(1, provides: ["item"], now: 0)
        let id = ScreenID(rawValue: 7)
        _ = delivery.apply(Self.place(7), route: .attached, now: 0)
        #expect(delivery.undeliverable(id, host: 1, hostHasScreen: false) == [.screenLost(id, kind: "item", host: 1)])
        #expect(delivery.invariantViolations().isEmpty)
    }

    @Test func aFullHostIsReportedAndTakesTheWaitingScreenOnceItHasRoom() {
        var delivery = ScreenDelivery(ackTimeout: 100)
        delivery.maxScreensPerHost = 2
        _ = delivery.hostJoined(1, provides: ["item"], now: 0)
        for id in [1, 2] as [UInt64] {
            _ = delivery.apply(Self.place(id), route: .attached, now: 0)
            _ = delivery.ack(ScreenID(rawValue: id), serial: 1, from: 1)
        }
        let third = delivery.apply(Self.place(3), route: .attached, now: 1)
        #expect(third.actions == [.hostFull(ScreenID(rawValue: 3), kind: "item", host: 1, screens: 2)])
        #expect(delivery.waitingScreens["item"] == [ScreenID(rawValue: 3)])
        let dismissed = delivery.apply(.dismiss(ScreenID(rawValue: 1), animated: false, reason: .flowFinished), route: .attached, now: 2)
        let dismissSerial = ScreenDeliveryTests.sends(dismissed.actions).first?.1 ?? 0
        let acked = delivery.ack(ScreenID(rawValue: 1), serial: dismissSerial, from: 1).actions
        #expect(acked.contains(.hostHasRoom(1)), "\(acked)")
        let given = delivery.hostHasRoom(1, now: 3)
        #expect(ScreenDeliveryTests.sends(given).map(\.0) == [1], "the waiting screen goes to the host: \(given)")
        #expect(delivery.screens[ScreenID(rawValue: 3)]?.phase == .live(host: 1))
        #expect(delivery.invariantViolations().isEmpty)
    }
}
