import FlowWire
import Testing

@testable import ScreenKit

@Suite("HostSession, the screen host's state machine")
struct HostSessionTests {
    private func place(_ id: UInt64, serial: UInt64 = 1) -> Flowd_V1_Envelope {
        Flowd_V1_Envelope(.place(.with { $0.screenID = id; $0.kind = "k"; $0.serial = serial }))
    }

    private func update(_ id: UInt64, serial: UInt64) -> Flowd_V1_Envelope {
        Flowd_V1_Envelope(.update(.with { $0.screenID = id; $0.serial = serial }))
    }

    private func dismiss(_ id: UInt64, serial: UInt64) -> Flowd_V1_Envelope {
        Flowd_V1_Envelope(.dismiss(.with { $0.screenID = id; $0.serial = serial }))
    }

    @Test("serials must grow: an Update with an old serial is reported, not delivered")
    func serialsGrow() {
        var session = HostSession(endsWhenLastScreenDismissed: false)
        guard case .place = session.receive(place(1)) else { Issue.record("expected .place"); return }
        session.placed(1, accepted: true)
        guard case .update = session.receive(update(1, serial: 2)) else { Issue.record("expected .update"); return }
        guard case .report(let error) = session.receive(update(1, serial: 2)) else {
            Issue.record("expected .report")
            return
        }
        #expect(error.code == .protocolViolation)
        #expect(session.lastSerial(of: 1) == 2)
    }

    @Test("a second Place for a live screen is reported")
    func placeTwice() {
        var session = HostSession(endsWhenLastScreenDismissed: false)
        _ = session.receive(place(1))
        session.placed(1, accepted: true)
        guard case .report = session.receive(place(1)) else { Issue.record("expected .report"); return }
    }

    @Test("a spawned session waits for Shutdown only after the last dismissal is acked")
    func endsAfterAckedDismissal() {
        var session = HostSession(endsWhenLastScreenDismissed: true)
        _ = session.receive(place(1))
        session.placed(1, accepted: true)
        _ = session.receive(place(2))
        session.placed(2, accepted: true)
        _ = session.receive(dismiss(2, serial: 2))
        session.acked(2, serial: 2)
        #expect(session.phase == .running)
        _ = session.receive(dismiss(1, serial: 2))
        #expect(session.phase == .running)
        session.acked(1, serial: 2)
        #expect(session.phase == .awaitingShutdown)
        #expect(session.connectionClosed() == .onlyScreenDismissed)
        #expect(session.isOver)
    }

    @Test("updates for a refused screen are dropped silently; its Dismiss only needs an ack")
    func refusedScreen() {
        var session = HostSession(endsWhenLastScreenDismissed: true)
        _ = session.receive(place(1))
        session.placed(1, accepted: false)
        #expect(session.receive(update(1, serial: 2)) == nil)
        guard case .ackOnly(1, 3) = session.receive(dismiss(1, serial: 3)) else {
            Issue.record("expected .ackOnly")
            return
        }
        // A host that never hosted a screen does not end.
        #expect(session.phase == .running)
    }

    @Test("Shutdown(SCREEN_DISMISSED) ends with .onlyScreenDismissed, others with .shutdown(reason)")
    func shutdownReasons() {
        var spawned = HostSession(endsWhenLastScreenDismissed: true)
        guard case .end(.onlyScreenDismissed) = spawned.receive(Flowd_V1_Envelope(.shutdown(.with { $0.reason = .screenDismissed }))) else {
            Issue.record("expected .onlyScreenDismissed")
            return
        }
        var connected = HostSession(endsWhenLastScreenDismissed: false)
        guard case .end(.shutdown(.appFinished)) = connected.receive(Flowd_V1_Envelope(.shutdown(.with { $0.reason = .appFinished }))) else {
            Issue.record("expected .shutdown(.appFinished)")
            return
        }
        #expect(connected.receive(place(1)) == nil)
    }
}
