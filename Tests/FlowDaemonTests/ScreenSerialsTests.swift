@testable import FlowDaemon
import FlowKit
import Testing

/// Serials only grow per screen; acks cover everything up to them.
@Suite struct ScreenSerialsTests {
    @Test func serialsGrowAndAcksCoverEarlierOnes() {
        var serials = ScreenSerials()
        #expect(serials.next() == 1)
        #expect(serials.next() == 2)
        #expect(serials.isPending)
        #expect(serials.ack(2) == .accepted(completesDismissal: false))
        #expect(!serials.isPending)
        #expect(serials.ack(1) == .stale)
        #expect(serials.ack(2) == .stale)
    }

    @Test func ackForASerialNeverSentIsUnknown() {
        var serials = ScreenSerials()
        #expect(serials.ack(1) == .unknown)
        _ = serials.next()
        #expect(serials.ack(2) == .unknown)
        #expect(serials.ack(0) == .unknown)
    }

    @Test func theDismissAckCompletesTheDismissal() {
        var serials = ScreenSerials()
        _ = serials.next()
        let dismiss = serials.nextDismiss()
        #expect(dismiss == 2)
        #expect(serials.ack(1) == .accepted(completesDismissal: false))
        #expect(serials.ack(2) == .accepted(completesDismissal: true))
    }
}
