import FlowKit

/// The root flow of a `tree-cost` tree: a tab bar of `tabs` tabs, each running a
/// `BenchStackFlow` of `depth` screens.
final class BenchTreeFlow: Flow {
    typealias RequiredContext = Presenter

    private let tabs: Int
    private let depth: Int
    /// The sub-flows, one per tab, and their ids.
    private(set) var stacks: [(flow: BenchStackFlow, id: FlowID)] = []

    init(tabs: Int, depth: Int) {
        self.tabs = tabs
        self.depth = depth
    }

    func start(_ flow: FlowContext<BenchTreeFlow>) {
        let placers = flow.placer.withTabBarEmbedding(count: tabs)
        for placer in placers {
            let stack = BenchStackFlow(depth: depth)
            let id = flow.start(stack, placer) { _, _ in } onEnd: { _ in }
            stacks.append((stack, id))
        }
    }
}
