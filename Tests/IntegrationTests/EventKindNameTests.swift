import FlowControl
import FlowWire
import Testing

/// `flowctl watch --kind NAME` and its event column know every kind the daemon can send.
@Suite struct EventKindNameTests {
    @Test func everyEventKindHasANameThatReadsBack() {
        for kind in Flowd_V1_EventKind.allCases where kind != .unspecified {
            let name = EventKindName.name(of: kind)
            #expect(!name.hasPrefix("kind-"), "no name for \(kind)")
            #expect(EventKindName.kind(named: name) == kind)
        }
        #expect(EventKindName.kind(named: "EVENT_KIND_SCREEN_RESTARTED") == .screenRestarted)
    }
}
