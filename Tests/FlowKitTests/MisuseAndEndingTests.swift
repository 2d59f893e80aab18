import FlowKit
import FlowKitTesting
import Foundation
import Testing

/// A flow that makes the classic mistake: it reads `flow.context` before showing its initial screen,
/// then goes on as if nothing happened.
final class EarlyContextReader: Flow {
    typealias RequiredContext = NavigationStack

    func start(_ flow: FlowContext<EarlyContextReader>) {
        let stack = flow.context
        flow.show(PlainScreen.self, .init(title: "pushed on a context read too early"), .pushed(in: stack))
        flow.show(PlainScreen.self, .init(title: "initial screen shown too late"))
    }
}

/// A flow whose initial placement may fail and that then reads its context anyway.
final class ContextAfterFailure: Flow {
    typealias RequiredContext = Presenter

    func start(_ flow: FlowContext<ContextAfterFailure>) {
        flow.show(PlainScreen.self, .init(title: "first"))
        flow.show(PlainScreen.self, .init(title: "on the context"), .presented(on: flow.context))
    }
}

/// A parent that starts sub-flows with the three required handlers and writes down what it heard;
/// "early" starts an `EarlyContextReader`, "child" a `NestFlow` it terminates from the child's own
/// output handler when the child emits "stop".
final class EndingParent: Flow {
    typealias RequiredContext = NavigationStack
    private(set) var heard: [String] = []
    private(set) var termination: DismissalReport?

    func start(_ flow: FlowContext<EndingParent>) {
        flow.show(PlainScreen.self, .init(title: "parent")).onOutput { [unowned self] output in
            guard case .tap(let what) = output else { return }
            if what == "early" {
                flow.start(EarlyContextReader(), .pushed(in: flow.context)) { [unowned self] _, _ in
                    heard.append("finished")
                } onEnd: { [unowned self] ending in
                    heard.append("ended \(ending)")
                }
                return
            }
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
    @Test func readingContextBeforeTheInitialScreenFailsThatFlowAndTheRuntimeGoesOn() throws {
        let tester = FlowTester()
        let shell = ShellFlow<Presenter>()
        let shellRecorder = tester.start(shell, windowRoot)
        let home = try #require(shell.screen)

        let early = tester.start(EarlyContextReader(), presented(on: home).withNavigationEmbedding())
        guard case .failed(let error)? = early.ending else {
            Issue.record("expected the flow to fail, it \(String(describing: early.ending))")
            return
        }
        #expect(error.code == .contextUnavailable)
        #expect(error.message.contains("read flow.context before its initial screen was placed"), "\(error.message)")
        #expect(error.message.contains("flow.show(_:_:)"), "the message says what to do: \(error.message)")
        #expect(tester.screens(PlainScreen.self) == [home.id], "nothing of the failed flow is placed")

        // The runtime and the other flows go on.
        tester.send(.tap("still here"), from: PlainScreen.self)
        tester.expectOutputs(shellRecorder, ["still here"])
        let tutorial = tester.start(OnboardingFlow(), presented(on: home).withNavigationEmbedding())
        #expect(tutorial.isOver == false)
        tester.expectVisible(TutorialScreen.self)
        #expect(tester.runtime.liveFlowCount == 2)
        tester.expectSound()
    }

    @Test func aSubFlowThatReadsContextTooEarlyReachesItsParentsOnEnd() throws {
        let tester = FlowTester()
        let parent = EndingParent()
        let recorder = tester.start(parent, windowRoot.withNavigationEmbedding())
        tester.send(.tap("early"), from: PlainScreen.self)
        #expect(parent.heard.count == 1)
        #expect(parent.heard.first?.hasPrefix("ended failed: contextUnavailable: flow ") == true, "\(parent.heard)")
        #expect(recorder.isOver == false, "the parent keeps running")
        #expect(tester.screens(PlainScreen.self).count == 1)
        tester.expectSound()
    }

    @Test func readingContextAfterTheInitialPlacementFailedKeepsTheFirstError() throws {
        let tester = FlowTester()
        let shell = ShellFlow<Presenter>()
        tester.start(shell, windowRoot)
        let home = try #require(shell.screen)
        tester.start(PickerFlow(items: ["a"]), .presented(on: home))
        let second = tester.start(ContextAfterFailure(), .presented(on: home))
        guard case .failed(let error)? = second.ending else {
            Issue.record("expected a failed ending, got \(String(describing: second.ending))")
            return
        }
        #expect(error.code == .invalidPlacement, "the placement's error, not a second one: \(error)")
        #expect(tester.runtime.liveFlowCount == 2)
        tester.expectSound()
    }

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
