@testable import FlowDaemon
import FlowKit
import FlowWire
import Testing

/// The event stream alone, by watcher id: what is staged, what a lagging watcher misses and is told.
@Suite struct EventBusTests {
    static func subscribe(_ bus: EventBus, _ watcher: UInt64, kinds: [Flowd_V1_EventKind] = []) {
        var request = Flowd_V1_Subscribe()
        request.kinds = kinds
        bus.subscribe(watcher, request)
    }

    @Test func anEventNobodyHearsTakesItsSeqAndIsNotBuilt() {
        let bus = EventBus()
        var built = false
        bus.emit(.connected, text: { built = true; return "x" }())
        #expect(bus.lastSeq == 1 && !built && !bus.hasStaged)
    }

    @Test func eachMatchingWatcherGetsTheEventStagedInOrder() {
        let bus = EventBus()
        Self.subscribe(bus, 3)
        Self.subscribe(bus, 4, kinds: [.disconnected])
        bus.emit(.connected, connection: 9, text: "came")
        bus.emit(.disconnected, connection: 9, text: "left")
        let staged = bus.takeStaged()
        #expect(staged.filter { $0.watcher == 3 }.map(\.event.text) == ["came", "left"])
        #expect(staged.filter { $0.watcher == 4 }.map(\.event.seq) == [2])
        #expect(!bus.hasStaged)
    }

    @Test func aLaggingWatcherMissesEventsAndIsToldBeforeItsNextOne() {
        let bus = EventBus()
        bus.lagLimit = 100
        Self.subscribe(bus, 3)
        for text in ["a", "b", "c"] { bus.emit(.connected, text: text) }
        let staged = bus.takeStaged()
        #expect(bus.admit(staged[0], pendingBytes: 101) == .skip)
        #expect(bus.admit(staged[1], pendingBytes: 101) == .skip)
        #expect(bus.hasLaggingWatchers)
        guard case .send(let lagged?) = bus.admit(staged[2], pendingBytes: 0) else { Issue.record("no Lagged"); return }
        #expect(lagged.dropped == 2 && lagged.nextSeq == 3)
        #expect(!bus.hasLaggingWatchers)
    }

    @Test func aWatcherThatDrainedIsToldAtOnceAndOneStillFullWaits() {
        let bus = EventBus()
        bus.lagLimit = 100
        Self.subscribe(bus, 3)
        Self.subscribe(bus, 4)
        bus.emit(.connected, text: "a")
        for staged in bus.takeStaged() { _ = bus.admit(staged, pendingBytes: 500) }
        let told = bus.catchUp { $0 == 3 ? 0 : 500 }
        #expect(told.map(\.watcher) == [3] && told.first?.lagged.nextSeq == 2)
        #expect(bus.hasLaggingWatchers, "watcher 4 is still full")
    }

    @Test func anEventTooLargeForItsWatcherIsCountedAsMissed() {
        let bus = EventBus()
        Self.subscribe(bus, 3)
        bus.emit(.connected, text: "big")
        bus.emit(.connected, text: "next")
        let staged = bus.takeStaged()
        bus.refused(staged[0])
        #expect(bus.takeOversized() == 1 && bus.takeOversized() == 0)
        guard case .send(let lagged?) = bus.admit(staged[1], pendingBytes: 0) else { Issue.record("no Lagged"); return }
        #expect(lagged.dropped == 1)
    }

    @Test func aWatcherThatLeftIsForgotten() {
        let bus = EventBus()
        Self.subscribe(bus, 3)
        bus.emit(.connected, text: "a")
        Self.subscribe(bus, 4)
        bus.emit(.connected, text: "b")
        bus.unsubscribe(3)
        let staged = bus.takeStaged()
        #expect(staged.count == 3, "a for 3; b for 3 and for 4")
        for event in staged where event.watcher == 3 { #expect(bus.admit(event, pendingBytes: 0) == .skip) }
        bus.unsubscribe(4)
        bus.emit(.connected, text: "c")
        #expect(!bus.hasSubscribers && !bus.hasLaggingWatchers && !bus.hasStaged, "the last one gone, nothing is kept for nobody")
    }

    @Test func eventsPastTheStagingBoundAreToldAfterTheStagedOnes() {
        let bus = EventBus()
        Self.subscribe(bus, 3)
        for _ in 0..<(EventBus.maxStaged + 5) { bus.emit(.connected, text: "x") }
        let staged = bus.takeStaged()
        #expect(staged.count == EventBus.maxStaged)
        for event in staged { #expect(bus.admit(event, pendingBytes: 0) == .send(lagged: nil), "no Lagged before the staged events") }
        #expect(bus.hasLaggingWatchers)
        let told = bus.catchUp { _ in 0 }
        #expect(told.map(\.watcher) == [3])
        #expect(told.first?.lagged.dropped == 5 && told.first?.lagged.nextSeq == bus.lastSeq + 1)
    }
}
