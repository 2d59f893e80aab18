/// The kinds of node in the navigation model.
public enum NodeKind: String, Hashable, Codable, Sendable {
    /// The one root.
    case window
    /// A navigation stack.
    case stack
    /// A tab bar.
    case tabBar
    /// A screen.
    case screen
}
