import FlowKit

/// One tab of a `tree-cost` tree: a navigation stack of `depth` screens, grown and
/// shrunk from outside by the benchmark (push, update, dismiss of the top).
final class BenchStackFlow: Flow {
    typealias RequiredContext = TabBar

    private let depth: Int
    private var flow: FlowContext<BenchStackFlow>?
    private var stack: NavigationStack?
    /// The stack's screens, bottom first.
    private(set) var screens: [Screen<BenchNodeScreen>] = []

    init(depth: Int) {
        self.depth = depth
    }

    func start(_ flow: FlowContext<BenchStackFlow>) {
        self.flow = flow
        let (root, stack) = flow.place(BenchNodeScreen.self, .init(title: "root"), flow.placer.withNavigationEmbedding())
        self.stack = stack
        observe(root)
        for _ in 1..<max(1, depth) { push() }
    }

    /// Pushes one screen on the stack.
    func push() {
        guard let flow, let stack else { return }
        observe(flow.show(BenchNodeScreen.self, .init(title: "node"), .pushed(in: stack)))
    }

    /// The top screen.
    var top: Screen<BenchNodeScreen> { screens[screens.count - 1] }

    /// Forgets the top screen after the user popped it.
    func popped() { screens.removeLast() }

    /// Dismisses the top screen (flow-initiated).
    func dismissTop() {
        screens.removeLast().dismiss(animated: false)
    }

    private func observe(_ screen: Screen<BenchNodeScreen>) {
        screens.append(screen)
        screen.onOutput { _ in }
    }
}
