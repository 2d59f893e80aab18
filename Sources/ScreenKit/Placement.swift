import FlowWire

/// Where a screen is in the daemon's navigation model: the path from the
/// window to the screen, and whether it can be seen (docs/protocol.md §7).
public struct Placement: Sendable, Hashable, CustomStringConvertible {
    /// From the window (first) to the screen itself (last).
    public var path: [PathElement]
    /// The screen can be seen: top of its stack, in the selected tab, not covered by a modal.
    public var visible: Bool
    /// The screen is the top of its stack, or not in a stack.
    public var topMost: Bool

    /// A placement from its parts.
    public init(path: [PathElement] = [], visible: Bool = false, topMost: Bool = false) {
        self.path = path
        self.visible = visible
        self.topMost = topMost
    }

    /// The element that contains the screen (the one before the last), if any.
    public var container: PathElement? { path.count >= 2 ? path[path.count - 2] : nil }

    /// The screen's position in its container (the last element's index); 0 for an empty path.
    public var index: Int { path.last.map { Int($0.index) } ?? 0 }

    /// True if the screen itself is presented modally on its container.
    public var isPresented: Bool { path.last?.presented ?? false }

    /// E.g. `window#1 > tabBar#4[0] > stack#6[1] > screen#12[1] (visible, top-most)`.
    public var description: String {
        var flags: [String] = []
        if visible { flags.append("visible") }
        if topMost { flags.append("top-most") }
        let trail = path.map(\.description).joined(separator: " > ")
        return flags.isEmpty ? trail : "\(trail) (\(flags.joined(separator: ", ")))"
    }
}

/// One step of a placement's path.
public struct PathElement: Sendable, Hashable, CustomStringConvertible {
    /// What a node of the navigation model is.
    public enum Kind: Sendable, Hashable {
        case window, stack, tabBar, screen
        /// A kind this version of ScreenKit does not know.
        case unspecified
    }

    /// The node's kind.
    public var kind: Kind
    /// The node's id (the window is 1; ids are never reused while the daemon runs).
    public var id: UInt64
    /// The position in the previous element: index in a stack (0 = root), tab index in a tab bar, else 0.
    public var index: UInt32
    /// True if the node is presented modally on the previous element.
    public var presented: Bool
    /// Tab bars only: the number of tabs.
    public var tabCount: UInt32

    /// A path element from its parts.
    public init(kind: Kind, id: UInt64, index: UInt32 = 0, presented: Bool = false, tabCount: UInt32 = 0) {
        self.kind = kind
        self.id = id
        self.index = index
        self.presented = presented
        self.tabCount = tabCount
    }

    /// E.g. `stack#6[1]`, `screen#15(presented)`, `tabBar#4[0](3 tabs)`.
    public var description: String {
        var text = "\(kind)#\(id)"
        if presented { text += "(presented)" } else if index != 0 { text += "[\(index)]" }
        if kind == .tabBar { text += "(\(tabCount) tabs)" }
        return text
    }
}

extension Placement {
    /// The placement a wire `Placement` describes.
    package init(_ wire: Flowd_V1_Placement) {
        self.init(path: wire.path.map(PathElement.init), visible: wire.visible, topMost: wire.topMost)
    }

    /// The wire form, for fake daemons in tests.
    package var wire: Flowd_V1_Placement {
        var wire = Flowd_V1_Placement()
        wire.path = path.map(\.wire)
        wire.visible = visible
        wire.topMost = topMost
        return wire
    }
}

extension PathElement {
    /// The path element a wire `PathElement` describes.
    package init(_ wire: Flowd_V1_PathElement) {
        let kind: Kind =
            switch wire.kind {
            case .window: .window
            case .stack: .stack
            case .tabBar: .tabBar
            case .screen: .screen
            default: .unspecified
            }
        self.init(kind: kind, id: wire.id, index: wire.index, presented: wire.presented, tabCount: wire.tabCount)
    }

    /// The wire form.
    package var wire: Flowd_V1_PathElement {
        var wire = Flowd_V1_PathElement()
        wire.kind =
            switch kind {
            case .window: .window
            case .stack: .stack
            case .tabBar: .tabBar
            case .screen: .screen
            case .unspecified: .unspecified
            }
        wire.id = id
        wire.index = index
        wire.presented = presented
        wire.tabCount = tabCount
        return wire
    }
}
