import FlowKit
import FlowKitTesting
import Testing

@Suite("Onboarding tutorial in four placements")
struct OnboardingTests {
    /// Walks the tutorial: skip is an output, next pushes the finish screen, done finishes.
    private func walk(_ tester: FlowTester, _ recorder: FlowRecorder<OnboardingFlow>, stack: NodeID) -> [ScreenID] {
        guard let welcome = tester.expectVisible(TutorialScreen.self) else { return [] }
        #expect(tester.state(of: welcome, as: TutorialScreen.self)?.buttons == ["Skip", "Next"])
        tester.send(.didPressButton(index: 0), from: TutorialScreen.self)
        tester.expectOutputs(recorder, [.didSkip])
        let done = tester.expectPush(when: welcome, of: TutorialScreen.self, sends: .didPressButton(index: 1), pushes: TutorialScreen.self, on: stack)
        #expect(tester.state(TutorialScreen.self)?.title == "All set")
        tester.expectSound()
        tester.send(.didPressButton(index: 0), from: TutorialScreen.self)
        return [welcome] + (done.map { [$0] } ?? [])
    }

    @Test func pushedOnAStack() throws {
        let tester = FlowTester()
        let shell = ShellFlow<NavigationStack>()
        tester.start(shell, windowRoot.withNavigationEmbedding())
        let stack = try #require(shell.context?.contextIfPlaced)
        let recorder = tester.start(OnboardingFlow(), .pushed(in: stack))
        tester.expectStack(stack.node, holds: ["plain", "tutorial"])
        let screens = walk(tester, recorder, stack: stack.node)
        tester.expectFinished(recorder, with: .finished, dismissing: screens)
        tester.expectStack(stack.node, holds: ["plain"])
        tester.expectVisible(PlainScreen.self)
        tester.expectSound()
    }

    @Test func asTheRootOfANewStack() throws {
        let tester = FlowTester()
        let recorder = tester.start(OnboardingFlow(), windowRoot.withNavigationEmbedding())
        let welcome = try #require(tester.screen(TutorialScreen.self))
        let stack = try #require(tester.placement(of: welcome)?.stack)
        #expect(tester.placement(of: welcome) == Placement(path: [.window, .stack(stack)], index: 0, isTopMost: true, isVisible: true))
        let screens = walk(tester, recorder, stack: stack)
        tester.expectFinished(recorder, with: .finished, dismissing: screens)
        tester.expectEmpty()
        tester.expectSound()
    }

    @Test func asTheRootOfAnExistingStackReplacingItsContent() throws {
        let tester = FlowTester()
        let shell = ShellFlow<NavigationStack>("splash")
        let shellRecorder = tester.start(shell, windowRoot.withNavigationEmbedding())
        let stack = try #require(shell.context?.contextIfPlaced)
        let splash = try #require(tester.screen(PlainScreen.self))
        var recorder = FlowRecorder<OnboardingFlow>()
        shell.context?.start(OnboardingFlow(), .root(of: stack), recorder: recorder)
        #expect(tester.transport.dismissed == [splash])
        tester.expectStack(stack.node, holds: ["tutorial"])
        #expect(shellRecorder.isOver == false, "replacing a flow's screen from its own sub-flow does not end it")
        let screens = walk(tester, recorder, stack: stack.node)
        tester.expectFinished(recorder, with: .finished, dismissing: screens)
        #expect(tester.runtime.liveScreenCount == 0)
        recorder = FlowRecorder()
        tester.expectSound()
    }

    @Test func presentedModallyInsideANewStack() throws {
        let tester = FlowTester()
        let shell = ShellFlow<Presenter>()
        tester.start(shell, .windowRoot)
        let home = try #require(shell.screen)
        let recorder = tester.start(OnboardingFlow(), presented(on: home).withNavigationEmbedding())
        let welcome = try #require(tester.screen(TutorialScreen.self))
        let placement = try #require(tester.placement(of: welcome))
        #expect(placement.path.first == .window)
        #expect(placement.path.dropFirst().first == .modal(presenter: home.id))
        #expect(tester.placement(of: home.id)?.isVisible == false)
        let screens = walk(tester, recorder, stack: try #require(placement.stack))
        tester.expectFinished(recorder, with: .finished, dismissing: screens)
        tester.expectVisible(PlainScreen.self)
        tester.expectSound()
    }

    @Test func closingTheModalEndsTheTutorialAsDismissedByUser() throws {
        let tester = FlowTester()
        let shell = ShellFlow<Presenter>()
        tester.start(shell, .windowRoot)
        let recorder = tester.start(OnboardingFlow(), presented(on: try #require(shell.screen)).withNavigationEmbedding())
        tester.send(.didPressButton(index: 1), from: TutorialScreen.self)
        try tester.closeModal()
        tester.expectEnded(recorder, .dismissedByUser)
        #expect(tester.runtime.liveFlowCount == 1)
        #expect(tester.screens(TutorialScreen.self).isEmpty)
        tester.expectSound()
    }

    @Test func asTheSecondTabOfATabBar() throws {
        let tester = FlowTester()
        let tabs = windowRoot.withTabBarEmbedding(count: 2)
        let first = ShellFlow<TabBar>("first tab")
        tester.start(first, tabs[0])
        let recorder = tester.start(OnboardingFlow(), tabs[1].withNavigationEmbedding())
        tester.expectVisible(PlainScreen.self)
        let welcome = try #require(tester.screen(TutorialScreen.self))
        let placement = try #require(tester.placement(of: welcome))
        guard case .tab(let bar, 1, _)? = placement.path.dropFirst().first else {
            Issue.record("welcome is not in tab 1: \(placement)")
            return
        }
        #expect(placement.isVisible == false)
        try tester.selectTab(1)
        #expect(tester.placement(of: welcome)?.isVisible == true)
        #expect(tester.runtime.debugTree().nodes.first { $0.id == bar }?.selectedTab == 1)
        let screens = walk(tester, recorder, stack: try #require(placement.stack))
        tester.expectFinished(recorder, with: .finished, dismissing: screens)
        #expect(tester.runtime.visibleScreen == nil, "the selected tab is empty now")
        try tester.runtime.receiveUserNavigation(.selectTab(0), from: try #require(first.screen?.id)).self
        tester.expectSound()
    }
}
