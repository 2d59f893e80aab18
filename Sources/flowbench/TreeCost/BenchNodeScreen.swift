import FlowKit

/// The screen of every node of `tree-cost`'s trees.
enum BenchNodeScreen: ScreenModule {
    /// A small state, the same size for every node.
    struct State: Codable {
        var title: String
    }

    /// The one output: a tap, handled by doing nothing (output routing alone).
    enum Output: Codable {
        case tap
    }

    static let kind = "bench-node"
}
