import FlowKit
import FlowWire

extension DebugTree {
    /// The navigation hierarchy as a display draws it, from `window` (the main one by default): each
    /// screen with its kind, visibility, owner and the secret of its current placement (`tokens`).
    func displayWindow(_ window: NodeID = .window, tokens: NodeTable<DisplayToken>) -> Flowd_V1_DisplayNode {
        let nodes = Dictionary(uniqueKeysWithValues: self.nodes.map { ($0.id, $0) })
        let flowTypes = Dictionary(uniqueKeysWithValues: flows.map { ($0.id, $0.typeName) })
        func displayNode(_ id: NodeID) -> Flowd_V1_DisplayNode {
            var node = Flowd_V1_DisplayNode()
            node.id = id.rawValue
            guard let info = nodes[id] else { return node }
            node.kind = Flowd_V1_NodeKind(info.kind)
            node.children = info.children.filter { $0 != .none }.map(displayNode)
            if let modal = info.modal, modal != .none { node.presented = displayNode(modal) }
            node.selectedTab = UInt32(info.selectedTab ?? 0)
            if info.kind == .screen {
                node.screenKind = info.screenKind ?? ""
                node.visible = info.placement?.isVisible ?? false
                if let owner = info.owner {
                    node.flowID = owner.rawValue
                    node.flowType = flowTypes[owner] ?? ""
                }
                node.displayToken = tokens[id]?.text ?? ""
            }
            return node
        }
        return displayNode(window)
    }

    /// The visible screen of `window` with its placement (the main window by default).
    func shown(in window: NodeID = .window) -> Displays.Shown? {
        let visible = window == .window ? visibleScreen : otherWindows.first { $0.id == window }?.visibleScreen
        guard let screen = visible, let placement = nodes.first(where: { $0.id == screen })?.placement else { return nil }
        return Displays.Shown(screen: screen, placement: placement)
    }

    /// Whether `screen` is in the model.
    func hasScreen(_ screen: ScreenID) -> Bool {
        nodes.contains { $0.id == screen && $0.kind == .screen }
    }
}
