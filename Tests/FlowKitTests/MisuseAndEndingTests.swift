import FlowKit
import FlowKitTesting
import Foundation
import Testing

/// A parent that starts sub-flows with the three required handlers and writes down what it heard:
/// "child" starts a `NestFlow` it terminates from the child's own output handler when the child
/// emits "stop".
final class EndingParent: Flow {
    typealias RequiredContext = NavigationStack
    private(set) var heard: [String] = []
    private(set) var termination: DismissalReport?

    func start(_ flow: FlowContext<EndingParent>) {
        flow.show(PlainScreen.self, .init(title: "parent")).onOutput { [unowned self] output in
            guard case .tap = output else { return }
            var child: FlowID?
            child = flow.start(NestFlow("child"), .pushed(in: flow.context)) { [unowned self] output in
                heard.append("output \(output)")
                guard output == "stop", let child else { return }
                flow.terminate(child, animated: true) { [unowned self] report in termination = report }
            } onFinish: { [unowned self] result, _ in
                heard.append("finished \(result)")
            } onEnd: { [unowned self] ending in
                heard.append("ended \(ending)")
            }
        }
    }
}

@Suite("A flow author's mistakes fail one flow; sub-flow endings are handled")
struct MisuseAndEndingTests {
    @Test func aParentTerminatesASubFlowFromThatSubFlowsOwnOutputHandler() throws {
        let tester = FlowTester()
        let parent = EndingParent()
        let recorder = tester.start(parent, windowRoot.withNavigationEmbedding())
        let home = try #require(tester.screen(PlainScreen.self))
        tester.send(.tap("child"), from: PlainScreen.self)
        tester.send(.tap("more"), from: PlainScreen.self)
        let childScreens = tester.screens(PlainScreen.self).filter { $0 != home }
        #expect(childScreens.count == 2)
        #expect(tester.runtime.liveFlowCount == 2)

        try tester.send(.tap("stop"), from: childScreens[0], as: PlainScreen.self)
        #expect(parent.heard == ["output stop"], "a parent terminating its own sub-flow is not called back")
        #expect(tester.runtime.liveFlowCount == 1)
        #expect(tester.screens(PlainScreen.self) == [home])
        #expect(tester.transport.dismissed == childScreens.reversed())
        #expect(parent.termination?.screens == childScreens.reversed())
        #expect(recorder.isOver == false)

        // The parent goes on: a new sub-flow starts and is heard.
        tester.send(.tap("child"), from: PlainScreen.self)
        tester.send(.tap("hello"), from: PlainScreen.self)
        #expect(parent.heard == ["output stop", "output hello"])
        tester.expectSound()
    }
}
