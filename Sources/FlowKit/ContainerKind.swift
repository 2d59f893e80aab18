/// A container a placer can create.
public enum ContainerKind: Hashable, Sendable {
    /// A navigation stack.
    case stack
    /// A tab bar with this many tabs.
    case tabBar(count: Int)
}
