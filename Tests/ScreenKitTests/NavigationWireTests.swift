import FlowKit
import FlowKitWire
import FlowWire
import Testing

/// FlowKitWire's navigation mappings, the one place a `NavigationPhase` and a `UserNavigation`
/// meet the wire (docs/protocol.md §9): ScreenKit sends with them, the daemon reads with them.
@Suite("User navigation on the wire and back")
struct NavigationWireTests {
    @Test("every phase survives the wire", arguments: NavigationPhase.allCases)
    func phaseRoundTrips(_ phase: NavigationPhase) {
        #expect(NavigationPhase(phase.wire) == phase)
    }

    @Test("the phases' raw values are the words a web page sends (docs/web.md), in the wire's order")
    func words() {
        #expect(NavigationPhase.allCases.map(\.rawValue) == ["immediate", "begin", "cancel", "commit"])
        #expect(NavigationPhase.allCases.map(\.wire.rawValue) == [0, 1, 2, 3])
    }

    @Test("a phase this version does not know is refused")
    func unknownPhase() {
        #expect(NavigationPhase(Flowd_V1_NavigationPhase.UNRECOGNIZED(9)) == nil)
        #expect(UserNavigation(Self.back(.UNRECOGNIZED(9))) == nil)
    }

    @Test("a back keeps its phase; a close applies only when immediate or committed", arguments: NavigationPhase.allCases)
    func navigation(_ phase: NavigationPhase) {
        #expect(UserNavigation(Self.back(phase.wire)) == .back(phase))
        var close = Flowd_V1_UserNavigation()
        close.action = .closeModal(.with { $0.phase = phase.wire })
        #expect(UserNavigation(close) == (phase.applies ? .closeModal : nil))
    }

    @Test("a tab selection keeps its index; no action is no navigation")
    func otherActions() {
        var select = Flowd_V1_UserNavigation()
        select.action = .selectTab(.with { $0.index = 3 })
        #expect(UserNavigation(select) == .selectTab(3))
        #expect(UserNavigation(Flowd_V1_UserNavigation()) == nil)
    }

    private static func back(_ phase: Flowd_V1_NavigationPhase) -> Flowd_V1_UserNavigation {
        var message = Flowd_V1_UserNavigation()
        message.action = .back(.with { $0.phase = phase })
        return message
    }
}
