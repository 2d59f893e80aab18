import FlowKit
import FlowKitTesting
import Testing

enum PinScreen: ScreenModule {
    static let kind = "pin"
    struct State: Codable, Equatable { var step: Int }
    enum Output: Codable, Equatable { case entered, ok }
}

/// Two pushed screens: enter a pin (emits `.pinEntered`), then confirm (finishes `.verified`).
final class PinFlow: Flow {
    typealias RequiredContext = NavigationStack
    enum Output: Equatable { case pinEntered }
    enum Result: Equatable { case verified }

    func start(_ flow: FlowContext<PinFlow>) {
        flow.show(PinScreen.self, .init(step: 1)).onOutput { _ in
            flow.emit(.pinEntered)
            flow.show(PinScreen.self, .init(step: 2), .pushed(in: flow.context)).onOutput { _ in flow.finish(.verified) }
        }
    }
}

/// How a parent unwinds the reused pin flow.
enum UnwindChoice: String, CaseIterable, Sendable {
    case dismissAnimated, dismissWithoutAnimation, leaveOnStack, dismissThenContinue, terminateEarly
}

/// A parent that pushes the pin flow on its stack and unwinds it its own way.
final class PinHostFlow: Flow {
    typealias RequiredContext = NavigationStack
    let choice: UnwindChoice
    private(set) var childEvents: [String] = []
    private(set) var dismissal: DismissalReport?

    init(_ choice: UnwindChoice) { self.choice = choice }

    func start(_ flow: FlowContext<PinHostFlow>) {
        flow.show(PlainScreen.self, .init(title: "home")).onOutput { [self] _ in
            var child = FlowID.host
            child = flow.start(PinFlow(), .pushed(in: flow.context)) { [self] output in
                guard case .pinEntered = output else { return }
                childEvents.append("pinEntered")
                if choice == .terminateEarly { flow.terminate(child, animated: true) { self.dismissal = $0 } }
            } onFinish: { [self] result, dismisser in
                childEvents.append("finished \(result)")
                switch choice {
                case .dismissAnimated: dismisser.dismiss(animated: true) { self.dismissal = $0 }
                case .dismissWithoutAnimation: dismisser.dismiss(animated: false) { self.dismissal = $0 }
                case .leaveOnStack: dismisser.leave()
                case .dismissThenContinue:
                    dismisser.dismiss { [self] report in
                        dismissal = report
                        flow.show(PlainScreen.self, .init(title: "next"), .pushed(in: flow.context))
                    }
                case .terminateEarly: Issue.record("a terminated flow must not finish")
                }
            } onEnd: { [self] ending in
                childEvents.append("ended \(ending)")
            }
        }
    }
}

@Suite("One flow reused in five places with five unwinding choices")
struct ReuseTests {
    @Test(arguments: UnwindChoice.allCases)
    func unwinding(_ choice: UnwindChoice) throws {
        let tester = FlowTester()
        let host = PinHostFlow(choice)
        let recorder = tester.start(host, windowRoot.withNavigationEmbedding())
        let home = try #require(tester.screen(PlainScreen.self))
        let stack = try #require(tester.placement(of: home)?.stack)
        let pin1 = tester.expectPush(when: home, of: PlainScreen.self, sends: .tap("pin"), pushes: PinScreen.self)
        tester.send(.entered, from: PinScreen.self)
        let pins = tester.screens(PinScreen.self)
        if choice != .terminateEarly {
            #expect(pins.count == 2 && pins.first == pin1)
            tester.send(.ok, from: PinScreen.self)
        }
        let dismissed = tester.transport.events.compactMap { event -> Bool? in
            if case .dismissed(_, let animated) = event { animated } else { nil }
        }
        switch choice {
        case .dismissAnimated:
            #expect(dismissed == [true, true])
            tester.expectStack(stack, holds: ["plain"])
            #expect(host.childEvents == ["pinEntered", "finished verified"])
            #expect(host.dismissal?.screens == pins.reversed())
        case .dismissWithoutAnimation:
            #expect(dismissed == [false, false])
            tester.expectStack(stack, holds: ["plain"])
        case .leaveOnStack:
            #expect(dismissed.isEmpty)
            tester.expectStack(stack, holds: ["plain", "pin", "pin"])
            #expect(pins.allSatisfy { tester.runtime.owner(of: $0) == recorder.id }, "the parent adopted the screens")
            try tester.back()
            #expect(tester.runtime.liveFlowCount == 1, "popping an adopted screen does not end the parent")
        case .dismissThenContinue:
            tester.expectStack(stack, holds: ["plain", "plain"])
            #expect(tester.state(PlainScreen.self)?.title == "next")
        case .terminateEarly:
            #expect(pins.isEmpty)
            #expect(dismissed == [true])
            tester.expectStack(stack, holds: ["plain"])
            #expect(host.childEvents == ["pinEntered"], "terminating a sub-flow does not call its handler")
            #expect(host.dismissal?.screens == [pin1].compactMap { $0 })
        }
        #expect(tester.runtime.liveFlowCount == 1)
        tester.expectSound()
        try tester.runtime.terminate(flow: recorder.id)
        tester.expectEmpty()
    }
}
