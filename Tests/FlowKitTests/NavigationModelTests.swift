import FlowKit
import FlowKitTesting
import Testing

@Suite("Placements and what the model reports after each operation")
struct NavigationModelTests {
    private func changes(_ tester: FlowTester, since count: Int) -> [String] {
        tester.transport.events[count...].map { event in
            switch event {
            case .placed(let id, _, _, let placement): "place \(id) \(placement)"
            case .updated(let id, _): "update \(id)"
            case .placementChanged(let id, let placement, let change): "\(change) \(id) \(placement)"
            case .dismissed(let id, _): "dismiss \(id)"
            }
        }
    }

    @Test func pushCoversAndPopUncovers() throws {
        let tester = FlowTester()
        let root = NestFlow("root")
        tester.start(root, windowRoot.withNavigationEmbedding())
        let bottom = try #require(tester.screen(PlainScreen.self))
        let stack = try #require(tester.placement(of: bottom)?.stack)
        #expect(tester.placement(of: bottom) == Placement(path: [.window, .stack(stack)], index: 0, isTopMost: true, isVisible: true))
        var mark = tester.transport.events.count
        tester.send(.tap("more"), from: PlainScreen.self)
        let top = try #require(tester.screen(PlainScreen.self))
        #expect(changes(tester, since: mark) == [
            "place \(top) window/stack\(stack)[1] top visible",
            "covered \(bottom) window/stack\(stack)[0]",
        ])
        mark = tester.transport.events.count
        try tester.back()
        #expect(changes(tester, since: mark) == ["dismiss \(top)", "uncovered \(bottom) window/stack\(stack)[0] top visible"])
    }

    @Test func modalsTabsAndMovesAreReported() throws {
        let tester = FlowTester()
        let tabs = windowRoot.withTabBarEmbedding(count: 2)
        let left = NestFlow("left")
        tester.start(left, tabs[0].withNavigationEmbedding())
        let right = ShellFlow<TabBar>("right")
        tester.start(right, tabs[1])
        let leftScreen = try #require(tester.screens(PlainScreen.self).first)
        let rightScreen = try #require(right.screen?.id)
        let leftPlacement = try #require(tester.placement(of: leftScreen))
        guard case .tab(let bar, 0, _)? = leftPlacement.path.dropFirst().first else {
            Issue.record("left screen not in tab 0: \(leftPlacement)")
            return
        }
        #expect(tester.placement(of: rightScreen) == Placement(path: [.window, .tab(bar: bar, index: 1, count: 2)], index: 0, isTopMost: true, isVisible: false))

        var mark = tester.transport.events.count
        try tester.selectTab(1, from: leftScreen)
        #expect(changes(tester, since: mark) == [
            "tabDeselected \(leftScreen) \(leftPlacement.path.map(\.description).joined(separator: "/"))[0] top",
            "tabSelected \(rightScreen) window/tabs\(bar):1[0] top visible",
        ])
        try tester.selectTab(0, from: rightScreen)

        // A modal on the left screen covers it; closing it uncovers it.
        let modal = ShellFlow<Presenter>("modal")
        let modalRecorder = tester.start(modal, .presented(on: Presenter(node: leftScreen)))
        let modalScreen = try #require(modal.screen?.id)
        #expect(tester.placement(of: modalScreen)?.path.last == .modal(presenter: leftScreen))
        #expect(tester.placement(of: leftScreen)?.isVisible == false)
        #expect(throws: FlowKitError.self) { try tester.selectTab(1, from: leftScreen) }
        mark = tester.transport.events.count
        try tester.closeModal()
        tester.expectEnded(modalRecorder, .dismissedByUser)
        #expect(changes(tester, since: mark) == ["dismiss \(modalScreen)", "uncovered \(leftScreen) \(leftPlacement)"])

        // Removing a screen in the middle of a stack moves the ones above.
        try tester.send(.tap("more"), from: leftScreen, as: PlainScreen.self)
        let middle = try #require(tester.screens(PlainScreen.self).last)
        try tester.send(.tap("more"), from: leftScreen, as: PlainScreen.self)
        let top = try #require(tester.screens(PlainScreen.self).last)
        mark = tester.transport.events.count
        tester.loseScreen(middle)
        #expect(changes(tester, since: mark).contains { $0.hasPrefix("moved \(top)") && $0.contains("[1] top visible") })
        tester.expectSound()
    }

    @Test func debugTreeShowsFlowsOwnersContainersAndVisibility() throws {
        let tester = FlowTester()
        let root = NestFlow("root")
        let recorder = tester.start(root, windowRoot.withNavigationEmbedding())
        tester.send(.tap("child"), from: PlainScreen.self)
        let tree = tester.runtime.debugTree()
        #expect(tree.flows.map(\.id) == [.host, recorder.id, FlowID(rawValue: recorder.id.rawValue + 1)])
        #expect(tree.flows[1].subFlows == [tree.flows[2].id])
        #expect(tree.flows[2].parent == recorder.id)
        #expect(tree.nodes.map(\.kind) == [.window, .stack, .screen, .screen])
        #expect(tree.nodes[3].owner == tree.flows[2].id)
        #expect(tree.nodes[3].placement?.isVisible == true)
        #expect(tree.visibleScreen == tree.nodes[3].id)
        #expect(tree.nodes[1].children == [tree.nodes[2].id, tree.nodes[3].id])
    }

    @Test func deepAndWideTreesCostByDepth() throws {
        // 50k screens on one stack, popped by the user one by one, then 500 nested modals: each
        // operation touches only the top, so this finishes quickly (a whole-tree scan per step would not).
        let tester = FlowTester()
        let root = NestFlow("root")
        tester.start(root, windowRoot.withNavigationEmbedding())
        let first = try #require(tester.screen(PlainScreen.self))
        for _ in 0..<50_000 {
            try tester.send(.tap("more"), from: first, as: PlainScreen.self)
        }
        #expect(tester.runtime.liveScreenCount == 50_001)
        for _ in 0..<49_000 { try tester.back() }
        #expect(tester.runtime.liveScreenCount == 1_001)
        var presenter = try #require(tester.visibleScreen)
        for index in 0..<500 {
            let modal = ShellFlow<Presenter>("m\(index)")
            tester.start(modal, .presented(on: Presenter(node: presenter)))
            presenter = try #require(modal.screen?.id)
        }
        #expect(tester.placement(of: presenter)?.path.count == 502)
        #expect(tester.runtime.liveFlowCount == 501)
        tester.runtime.terminateAll()
        tester.expectEmpty()
    }
}
