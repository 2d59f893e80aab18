extension ScreenPlacer where Context == Presenter {
    /// As the window's content, replacing what was there; the content can present.
    public static var windowRoot: ScreenPlacer<Presenter> {
        ScreenPlacer<Presenter> { (request) throws(FlowKitError) -> Presenter in
            try request.attach(.windowContent)
            return Presenter(node: request.content)
        }
    }

}

extension ScreenPlacer where Context == NavigationStack {
    /// Pushed on top of `stack`, animated unless told otherwise.
    public static func pushed(in stack: NavigationStack, animated: Bool = true) -> ScreenPlacer<NavigationStack> {
        ScreenPlacer<NavigationStack>(animated: animated) { (request) throws(FlowKitError) -> NavigationStack in
            try request.attach(.push(onto: stack.node))
            return stack
        }
    }

    /// As the only content (root) of `stack`, replacing what it holds.
    public static func root(of stack: NavigationStack, animated: Bool = false) -> ScreenPlacer<NavigationStack> {
        ScreenPlacer<NavigationStack>(animated: animated) { (request) throws(FlowKitError) -> NavigationStack in
            try request.attach(.stackRoot(stack.node))
            return stack
        }
    }

}

extension ScreenPlacer where Context == Presenter {
    /// Presented modally on `presenter` (a screen, a stack, a tab bar), animated unless told
    /// otherwise; the content can present.
    public static func presented(on presenter: some NavigationContext, animated: Bool = true) -> ScreenPlacer<Presenter> {
        let node = presenter.node
        return ScreenPlacer<Presenter>(animated: animated) { (request) throws(FlowKitError) -> Presenter in
            try request.attach(.modal(on: node))
            return Presenter(node: request.content)
        }
    }

}

extension ScreenPlacer {
    /// A new navigation stack placed by this placer, with the content as its root.
    public func withNavigationEmbedding() -> ScreenPlacer<NavigationStack> {
        ScreenPlacer<NavigationStack>(animated: animated) { (request) throws(FlowKitError) -> NavigationStack in
            let stack = request.makeContainer(.stack)
            _ = try self.place(stack)
            try request.attach(.push(onto: stack.content))
            return NavigationStack(node: stack.content)
        }
    }

    /// One placer per tab of a new tab bar, which this placer places when the first tab is used.
    /// Using a tab's placer again replaces that tab's content.
    public func withTabBarEmbedding(count: Int) -> [ScreenPlacer<TabBar>] {
        let shared = SharedTabBar()
        return (0..<max(1, count)).map { index in
            ScreenPlacer<TabBar>(animated: animated) { (request) throws(FlowKitError) -> TabBar in
                if shared.node == .none || !request.isPlaced(shared.node) {
                    let bar = request.makeContainer(.tabBar(count: count))
                    _ = try self.place(bar)
                    shared.node = bar.content
                }
                try request.attach(.tab(bar: shared.node, index: index))
                return TabBar(node: shared.node)
            }
        }
    }
}

/// The tab bar the placers of one `withTabBarEmbedding(count:)` share.
final class SharedTabBar {
    var node = NodeID.none
}

/// As the window's content, replacing what was there.
public var windowRoot: ScreenPlacer<Presenter> { ScreenPlacer<Presenter>.windowRoot }

/// Pushed on top of `stack`, animated unless told otherwise.
public func pushed(in stack: NavigationStack, animated: Bool = true) -> ScreenPlacer<NavigationStack> {
    ScreenPlacer<NavigationStack>.pushed(in: stack, animated: animated)
}

/// As the only content (root) of `stack`.
public func root(of stack: NavigationStack, animated: Bool = false) -> ScreenPlacer<NavigationStack> {
    ScreenPlacer<NavigationStack>.root(of: stack, animated: animated)
}

/// Presented modally on `presenter`, animated unless told otherwise.
public func presented(on presenter: some NavigationContext, animated: Bool = true) -> ScreenPlacer<Presenter> {
    ScreenPlacer<Presenter>.presented(on: presenter, animated: animated)
}
