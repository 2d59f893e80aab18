import FlowKit
import FlowKitTesting
import Foundation
import Testing

/// A flow that pushes one screen and starts sub-flows on request: taps "child" starts a `NestFlow`
/// pushed on the same stack, "finish" finishes, anything else is emitted.
final class NestFlow: Flow {
    typealias RequiredContext = NavigationStack
    typealias Output = String
    typealias Result = String
    let name: String
    private(set) var childEvents: [String] = []
    private(set) var navigation: [NavigationEvent] = []
    /// The newest sub-flow, held weakly (the runtime owns it).
    private(set) weak var lastChild: NestFlow?

    init(_ name: String) { self.name = name }

    func start(_ flow: FlowContext<NestFlow>) {
        flow.onNavigation { [weak self] in self?.navigation.append($0) }
        flow.show(PlainScreen.self, .init(title: name)).onOutput { [weak self] output in
            guard let self, case .tap(let what) = output else { return }
            switch what {
            case "child", "child2":
                let child = NestFlow("\(name)/\(what)")
                lastChild = child
                flow.start(child, .pushed(in: flow.context)) { [weak self] output in
                    self?.childEvents.append("output \(output)")
                } onFinish: { [weak self] result, _ in
                    self?.childEvents.append("finished \(result)")
                } onEnd: { [weak self] ending in
                    self?.childEvents.append("ended \(ending)")
                }
            case "more":
                flow.show(PlainScreen.self, .init(title: "\(name)+"), .pushed(in: flow.context))
            case "finish":
                flow.finish(name)
            default:
                flow.emit(what)
            }
        }
    }
}

@Suite("Retention, termination order, user dismissal, lost screens, dismissal completion")
struct LifetimeTests {
    @Test func subFlowsAreRetainedUntilTheyEndThenFreed() throws {
        let tester = FlowTester()
        weak var weakRoot: NestFlow?
        weak var weakChild: NestFlow?
        var recorder: FlowRecorder<NestFlow>?
        do {
            let root = NestFlow("root")
            weakRoot = root
            recorder = tester.start(root, windowRoot.withNavigationEmbedding())
        }
        #expect(weakRoot != nil, "the runtime retains a running root flow")
        tester.send(.tap("child"), from: PlainScreen.self)
        let rootID = try #require(recorder?.id)
        let childID = try #require(tester.runtime.subFlows(of: rootID).first)
        #expect(tester.runtime.typeName(of: childID) == "NestFlow")
        do {
            let tree = tester.runtime.debugTree()
            #expect(tree.flows.map(\.typeName) == ["host", "NestFlow", "NestFlow"])
        }
        weakChild = weakRoot?.lastChild
        #expect(weakChild != nil)
        tester.send(.tap("finish"), from: PlainScreen.self)
        #expect(weakRoot?.childEvents == ["finished root/child"])
        #expect(tester.runtime.liveFlowCount == 1)
        #expect(weakChild == nil)
        try tester.send(.tap("finish"), from: tester.screens(PlainScreen.self)[0], as: PlainScreen.self)
        #expect(weakRoot == nil, "a finished root flow is freed")
        let dismisser = try #require(recorder?.dismisser)
        #expect(dismisser.screens.count == 2, "the root's dismisser covers what its child left too")
        var done = false
        dismisser.dismiss(animated: false) { report in done = report.allAcknowledged }
        tester.settle()
        #expect(done)
        recorder = nil
        tester.expectEmpty()
        tester.expectSound()
    }

    @Test func finishedAndTerminatedFlowObjectsAreFreed() throws {
        let tester = FlowTester()
        weak var weakChild: NestFlow?
        weak var weakGrandChild: NestFlow?
        let root = NestFlow("root")
        let recorder = tester.start(root, windowRoot.withNavigationEmbedding())
        tester.send(.tap("child"), from: PlainScreen.self)
        tester.send(.tap("child"), from: PlainScreen.self)
        let tree = tester.runtime.debugTree()
        #expect(tree.flows.count == 4)
        weakChild = root.lastChild
        weakGrandChild = weakChild?.lastChild
        #expect(weakChild != nil && weakGrandChild != nil)
        // Reach the objects only weakly: the runtime holds them.
        final class Probe: Flow {
            typealias RequiredContext = NavigationStack
            func start(_ flow: FlowContext<Probe>) { flow.show(PlainScreen.self, .init(title: "probe")) }
        }
        weak var weakProbe: Probe?
        do {
            let probe = Probe()
            weakProbe = probe
            tester.start(probe, presented(on: Presenter(node: try #require(tester.visibleScreen))).withNavigationEmbedding())
        }
        #expect(weakProbe != nil)
        try tester.runtime.terminate(flow: try #require(tester.runtime.runningFlows.last))
        #expect(weakProbe == nil, "a terminated flow is freed")
        try tester.runtime.terminate(flow: recorder.id)
        #expect(weakChild == nil && weakGrandChild == nil)
        tester.expectEmpty()
    }

    @Test func terminationEndsSubFlowsLastStartedFirstThenTheFlowsOwnScreens() throws {
        let tester = FlowTester()
        let root = NestFlow("root")
        let recorder = tester.start(root, windowRoot.withNavigationEmbedding())
        let rootScreen = try #require(tester.screen(PlainScreen.self))
        try tester.send(.tap("child"), from: rootScreen, as: PlainScreen.self)
        let first = try #require(tester.screen(PlainScreen.self))
        try tester.send(.tap("child2"), from: rootScreen, as: PlainScreen.self)
        let second = try #require(tester.screen(PlainScreen.self))
        try tester.send(.tap("more"), from: rootScreen, as: PlainScreen.self)
        let more = try #require(tester.screen(PlainScreen.self))
        try tester.send(.tap("more"), from: first, as: PlainScreen.self)
        let firstMore = try #require(tester.screen(PlainScreen.self))
        tester.transport.clearEvents()
        try tester.runtime.terminate(flow: recorder.id)
        #expect(tester.transport.dismissed == [second, firstMore, first, more, rootScreen])
        #expect(root.childEvents.isEmpty, "sub-flows ended by their parent's end are not reported to it")
        tester.expectEnded(recorder, .terminated)
        tester.expectEmpty()
    }

    @Test func userBackOnTheInitialScreenEndsTheFlowAndTellsTheParent() throws {
        let tester = FlowTester()
        let root = NestFlow("root")
        tester.start(root, windowRoot.withNavigationEmbedding())
        tester.send(.tap("child"), from: PlainScreen.self)
        tester.send(.tap("more"), from: PlainScreen.self)
        let more = try #require(tester.screen(PlainScreen.self))
        try tester.back()
        #expect(tester.runtime.liveFlowCount == 2)
        #expect(!tester.transport.screens.keys.contains(more))
        try tester.back()
        #expect(root.childEvents == ["ended dismissed by user"])
        #expect(tester.runtime.liveFlowCount == 1)
        tester.expectSound()
    }

    @Test func aCancelledBackGestureChangesNothing() throws {
        let tester = FlowTester()
        let root = NestFlow("root")
        tester.start(root, windowRoot.withNavigationEmbedding())
        tester.send(.tap("more"), from: PlainScreen.self)
        let tree = tester.runtime.debugTree()
        let events = tester.transport.events.count
        try tester.backGesture(commit: false)
        #expect(tester.runtime.debugTree() == tree)
        #expect(tester.transport.events.count == events)
        #expect(root.navigation.isEmpty)
        try tester.backGesture(commit: true)
        #expect(root.navigation.count == 1)
        #expect(tester.runtime.liveScreenCount == 1)
    }

    @Test func invalidNavigationIsRefusedWithoutChange() throws {
        let tester = FlowTester()
        let root = NestFlow("root")
        tester.start(root, windowRoot.withNavigationEmbedding())
        let rootScreen = try #require(tester.screen(PlainScreen.self))
        #expect(throws: FlowKitError.self) { try tester.back() }
        #expect(throws: FlowKitError.self) { try tester.closeModal() }
        #expect(throws: FlowKitError.self) { try tester.selectTab(1) }
        #expect(throws: FlowKitError.self) { try tester.runtime.receiveUserNavigation(.back(.cancel), from: rootScreen) }
        tester.send(.tap("more"), from: PlainScreen.self)
        do {
            try tester.back(from: rootScreen)
            Issue.record("back from a covered screen must fail")
        } catch {
            #expect(error.code == .invalidNavigation)
        }
        #expect(tester.runtime.liveScreenCount == 2)
        tester.expectSound()
    }

    @Test func outputsThatDoNotDecodeThrowAndAreNotDelivered() throws {
        let tester = FlowTester()
        let shell = ShellFlow<Presenter>()
        let recorder = tester.start(shell, windowRoot)
        let screen = try #require(shell.screen?.id)
        do {
            try tester.runtime.receiveOutput(screen: screen, payload: Data(#"{"nope":{}}"#.utf8))
            Issue.record("a bad payload must throw")
        } catch {
            #expect(error.code == .outputDecodingFailed)
            #expect(error.message.contains("plain"))
        }
        #expect(throws: FlowKitError.self) { try tester.runtime.receiveOutput(screen: NodeID(rawValue: 999), payload: Data()) }
        #expect(recorder.outputs.isEmpty)
        #expect(try tester.runtime.receiveOutput(screen: screen, payload: Data(#"{"tap":{"_0":"x"}}"#.utf8)))
        #expect(recorder.outputs == ["x"])
    }

    @Test func losingTheInitialScreenEndsTheFlowWithScreenLost() throws {
        let tester = FlowTester()
        let root = NestFlow("root")
        tester.start(root, windowRoot.withNavigationEmbedding())
        tester.send(.tap("child"), from: PlainScreen.self)
        let child = try #require(tester.screen(PlainScreen.self))
        tester.send(.tap("more"), from: PlainScreen.self)
        let above = try #require(tester.screen(PlainScreen.self))
        tester.loseScreen(child)
        #expect(root.childEvents == ["ended screen \(child) lost"])
        #expect(tester.transport.dismissed == [above], "the lost screen is not asked to dismiss; the rest of the flow is")
        #expect(tester.runtime.liveScreenCount == 1)
        tester.expectSound()
    }

    @Test func losingAnotherScreenTellsTheFlowAndKeepsTheModelConsistent() throws {
        let tester = FlowTester()
        let root = NestFlow("root")
        tester.start(root, windowRoot.withNavigationEmbedding())
        let rootScreen = try #require(tester.screen(PlainScreen.self))
        tester.send(.tap("more"), from: PlainScreen.self)
        let middle = try #require(tester.screen(PlainScreen.self))
        try tester.send(.tap("more"), from: rootScreen, as: PlainScreen.self)
        let top = try #require(tester.screen(PlainScreen.self))
        tester.transport.clearEvents()
        tester.loseScreen(middle)
        #expect(root.navigation == [.screenLost(middle)])
        #expect(tester.placement(of: top)?.index == 1)
        #expect(tester.transport.events.contains { if case .placementChanged(top, _, .moved) = $0 { true } else { false } })
        #expect(tester.runtime.liveFlowCount == 1)
        tester.expectSound()
    }

    @Test func finishingWithARunningSubFlowHandsItsScreensToTheDismisser() throws {
        let tester = FlowTester()
        let recorder = tester.start(NestFlow("root"), windowRoot.withNavigationEmbedding())
        let rootScreen = try #require(tester.screen(PlainScreen.self))
        tester.send(.tap("child"), from: PlainScreen.self)
        let child = try #require(tester.screen(PlainScreen.self))
        try tester.send(.tap("finish"), from: rootScreen, as: PlainScreen.self)
        #expect(tester.runtime.liveFlowCount == 0)
        #expect(tester.runtime.owner(of: child) == .host)
        tester.expectFinished(recorder, with: "root", dismissing: [rootScreen, child])
        tester.expectEmpty()
    }

    @Test func unwindingCompletesWhenEveryScreenAcknowledgedOrTimedOut() throws {
        let tester = FlowTester(acknowledgesAutomatically: false)
        let recorder = tester.start(NestFlow("root"), windowRoot.withNavigationEmbedding())
        tester.send(.tap("more"), from: PlainScreen.self)
        try tester.send(.tap("more"), from: tester.screens(PlainScreen.self)[0], as: PlainScreen.self)
        let screens = tester.screens(PlainScreen.self)
        try tester.send(.tap("finish"), from: screens[0], as: PlainScreen.self)
        var report: DismissalReport?
        try #require(recorder.dismisser).dismiss(animated: true) { report = $0 }
        #expect(tester.transport.dismissed == screens.reversed(), "top-most first")
        #expect(tester.runtime.pendingDismissals == 3)
        tester.transport.acknowledge(screens[2])
        tester.transport.timeOut(screens[0])
        #expect(report == nil)
        tester.transport.acknowledge(screens[1], .hostLost)
        #expect(report?.outcomes.map(\.outcome) == [.acknowledged, .hostLost, .timedOut])
        #expect(report?.screens == screens.reversed())
        #expect(tester.runtime.pendingDismissals == 0)
        tester.expectEmpty()
    }

    @Test func aPlacementThatFailsEndsTheFlowAsFailed() throws {
        let tester = FlowTester()
        let shell = ShellFlow<Presenter>()
        tester.start(shell, windowRoot)
        let home = try #require(shell.screen)
        tester.start(PickerFlow(items: ["a"]), .presented(on: home))
        let second = tester.start(PickerFlow(items: ["b"]), .presented(on: home))
        guard case .failed(let error)? = second.ending else {
            Issue.record("expected a failed ending, got \(String(describing: second.ending))")
            return
        }
        #expect(error.code == .invalidPlacement)
        #expect(tester.runtime.liveScreenCount == 2)
        tester.expectSound()
    }

    @Test func terminateAllUnwindsEverything() throws {
        let tester = FlowTester()
        let first = tester.start(NestFlow("a"), windowRoot.withNavigationEmbedding())
        tester.send(.tap("child"), from: PlainScreen.self)
        tester.send(.tap("finish"), from: PlainScreen.self)
        let shell = ShellFlow<Presenter>()
        let second = tester.start(shell, .presented(on: Presenter(node: try #require(tester.screen(PlainScreen.self)))))
        tester.runtime.terminateAll()
        tester.expectEnded(first, .terminated)
        tester.expectEnded(second, .terminated)
        #expect(tester.transport.host.unwound[.all]?.screens.count == 3)
        tester.expectEmpty()
    }
}

/// A flow that keeps its context in a property, as many flows do: the flow holds its node (through
/// the context) and the node holds the flow.
final class KeepsContextFlow: Flow {
    typealias RequiredContext = NavigationStack
    typealias Output = String
    typealias Result = String
    private var context: FlowContext<KeepsContextFlow>?

    func start(_ flow: FlowContext<KeepsContextFlow>) {
        context = flow
        flow.show(PlainScreen.self, .init(title: "kept"))
    }
}

@Suite("A runtime dropped while its flows run")
struct DroppedRuntimeTests {
    @Test func freesTheFlowsThatKeepTheirContext() {
        weak var weakFlow: KeepsContextFlow?
        do {
            let tester = FlowTester()
            let flow = KeepsContextFlow()
            weakFlow = flow
            _ = tester.start(flow, windowRoot.withNavigationEmbedding())
            #expect(weakFlow != nil, "running: the runtime retains it")
        }
        // The runtime went with the tester (a daemon that stopped or crashed, a restore that started over).
        #expect(weakFlow == nil, "the flow and its node held each other; the runtime's end releases them")
    }
}
