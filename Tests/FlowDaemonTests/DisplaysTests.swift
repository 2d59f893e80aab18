@testable import FlowDaemon
import FlowKit
import FlowWire
import Testing

/// The display role's rules and the scene's transitions, without a socket.
@Suite struct DisplaysTests {
    private func hello(role: Flowd_V1_Role, token: String = "") -> Flowd_V1_Envelope.OneOf_Body {
        var hello = Flowd_V1_Hello()
        hello.minVersion = 1
        hello.maxVersion = 1
        hello.role = role
        hello.token = token
        return .hello(hello)
    }

    @Test func aDisplayMaySendNavigationPingAndShutdownOnly() {
        var display = ConnectionStateMachine(origin: .namedSocket(uid: 1000), supportedVersions: 1...1, maxFrameSize: 1 << 20)
        guard case .welcome(let agreement) = display.receive(hello(role: .display)) else {
            Issue.record("a display on the named socket is welcomed")
            return
        }
        #expect(agreement.role == .display)
        #expect(display.receive(.userNavigation(.init())) == .handle)
        #expect(display.receive(.ping(.init())) == .handle)
        #expect(!display.isScreenHost, "outputs and acks are not taken on the hot path")
        for body: Flowd_V1_Envelope.OneOf_Body in [.output(.init()), .ack(.init()), .saveState(.init()), .openLink(.init()), .injectNavigation(.init()), .subscribe(.init())] {
            var machine = display
            guard case .reject(let violation) = machine.receive(body) else {
                Issue.record("\(body.name) from a display must be refused")
                continue
            }
            #expect(violation.code == .unexpectedMessage)
            #expect(violation.message.contains("display"), "\(violation.message)")
        }
        var spawned = ConnectionStateMachine(origin: .spawned(token: "t"), supportedVersions: 1...1, maxFrameSize: 1 << 20)
        guard case .reject(let violation) = spawned.receive(hello(role: .display, token: "t")) else {
            Issue.record("a spawned screen may not take the display role")
            return
        }
        #expect(violation.code == .unauthorized)
    }

    @Test func aDebugClientStillMayNotSendUserNavigation() {
        var debug = ConnectionStateMachine(origin: .namedSocket(uid: 1000), supportedVersions: 1...1, maxFrameSize: 1 << 20)
        _ = debug.receive(hello(role: .debug))
        guard case .reject(let violation) = debug.receive(.userNavigation(.init())) else {
            Issue.record("UserNavigation from a debug client is refused")
            return
        }
        #expect(violation.message.contains("InjectNavigation"))
    }

    private func shown(_ screen: UInt64, _ path: [PlacementStep], index: Int = 0) -> Displays.Shown {
        Displays.Shown(screen: NodeID(rawValue: screen), placement: Placement(path: path, index: index, isTopMost: true, isVisible: true))
    }

    @Test func transitionsFollowWhereTheVisibleScreenWent() {
        let stack: [PlacementStep] = [.window, .stack(NodeID(rawValue: 2))]
        let root = shown(3, stack, index: 0)
        let top = shown(4, stack, index: 1)
        #expect(Displays.transition(from: root, stillThere: true, to: top) == .push)
        #expect(Displays.transition(from: top, stillThere: false, to: root) == .pop)
        #expect(Displays.transition(from: top, stillThere: false, to: shown(5, stack, index: 1)) == .pop, "the top replaced")
        #expect(Displays.transition(from: root, stillThere: true, to: root) == .none)
        let modal = shown(6, stack + [.modal(presenter: NodeID(rawValue: 3)), .stack(NodeID(rawValue: 7))])
        #expect(Displays.transition(from: root, stillThere: true, to: modal) == .present)
        #expect(Displays.transition(from: modal, stillThere: false, to: root) == .dismiss)
        let tab0 = shown(9, [.window, .tab(bar: NodeID(rawValue: 8), index: 0, count: 2)])
        let tab1 = shown(10, [.window, .tab(bar: NodeID(rawValue: 8), index: 1, count: 2)])
        #expect(Displays.transition(from: tab0, stillThere: true, to: tab1) == .tab)
        #expect(Displays.transition(from: tab0, stillThere: false, to: root) == .replace)
        #expect(Displays.transition(from: nil, stillThere: false, to: root) == .replace)
        #expect(Displays.transition(from: nil, stillThere: false, to: nil) == .none)
    }

    @Test func everyPlaceGetsAFreshSecretAndOldOnesArePruned() {
        var displays = Displays()
        let screen = NodeID(rawValue: 3)
        let first = displays.placed(screen, live: (1, { $0 == screen }))
        let second = displays.placed(screen, live: (1, { $0 == screen }))
        #expect(first.count == 32 && first.allSatisfy(\.isHexDigit))
        #expect(first != second && displays.tokens[screen]?.text == second)
        for id in 100..<200 { _ = displays.placed(NodeID(rawValue: UInt64(id)), live: (1, { $0 == screen })) }
        #expect(displays.tokens.count <= 2 + 64 + 1, "the secrets of screens gone do not pile up: \(displays.tokens.count)")
        #expect(displays.tokens[screen]?.text == second)
    }
}
