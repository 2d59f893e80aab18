@testable import ScreenKit
import FlowWire
import Testing

/// Which inputs a host sends again after a drop (docs/protocol.md §20).
@Suite struct UnconfirmedInputsTests {
    static func output(_ screen: UInt64) -> Flowd_V1_Envelope.OneOf_Body {
        var output = Flowd_V1_Output()
        output.screenID = screen
        return .output(output)
    }

    static func key(_ body: Flowd_V1_Envelope.OneOf_Body) -> UInt64 {
        switch body {
        case .output(let o): o.key
        case .userNavigation(let n): n.key
        default: 0
        }
    }

    @Test func aPongConfirmsTheInputsSentBeforeItsPingOnly() {
        var inputs = UnconfirmedInputs()
        var keys: [UInt64] = []
        for screen in 1...3 {
            let (body, number) = inputs.keyed(Self.output(UInt64(screen)))
            keys.append(Self.key(body))
            inputs.sent(body, number: number)
            if screen == 2 { inputs.pinged(10) }
        }
        let (navigation, number) = inputs.keyed(.userNavigation(Flowd_V1_UserNavigation()))
        keys.append(Self.key(navigation))
        #expect(Set(keys).count == 4 && !keys.contains(0), "every input gets its own key")
        inputs.sent(navigation, number: number)
        #expect(inputs.entries.count == 4)
        inputs.ponged(10)
        #expect(inputs.entries.map { Self.key($0.body) } == Array(keys[2...]), "the two sent before the Ping are confirmed")
        inputs.ponged(10)
        #expect(inputs.entries.count == 2, "a Pong counts once")
        inputs.pinged(11)
        inputs.connectionChanged()
        inputs.ponged(11)
        #expect(inputs.entries.count == 2, "a Pong of another connection's Ping confirms nothing")
    }

    @Test func twoHostsDoNotShareKeys() {
        var a = UnconfirmedInputs()
        var b = UnconfirmedInputs()
        #expect(Self.key(a.keyed(Self.output(1)).0) != Self.key(b.keyed(Self.output(1)).0))
    }

    @Test func onlyTheLatestAreKept() {
        var inputs = UnconfirmedInputs()
        for screen in 0..<(UnconfirmedInputs.capacity + 10) {
            let (body, number) = inputs.keyed(Self.output(UInt64(screen)))
            inputs.sent(body, number: number)
        }
        #expect(inputs.entries.count == UnconfirmedInputs.capacity)
        #expect(inputs.entries.first?.number == 11)
    }
}
