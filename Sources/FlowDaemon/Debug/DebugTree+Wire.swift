import FlowKit
import FlowWire

extension DebugTree {
    /// The flow hierarchy in wire form: the root flow, or a `host` node over
    /// several root flows; nil when no flow runs.
    func wireRootFlow() -> Flowd_V1_FlowNode? {
        let flows = Dictionary(uniqueKeysWithValues: self.flows.map { ($0.id, $0) })
        func flowNode(_ id: FlowID) -> Flowd_V1_FlowNode {
            var node = Flowd_V1_FlowNode()
            node.id = id.rawValue
            guard let info = flows[id] else { return node }
            node.type = info.typeName
            node.screenIds = info.screens.map(\.rawValue)
            node.children = info.subFlows.map(flowNode)
            return node
        }
        let roots = self.flows.filter { $0.id != .host && ($0.parent == nil || $0.parent == .host || flows[$0.parent!] == nil) }
        let hostScreens = flows[.host]?.screens ?? []
        if roots.count == 1 && hostScreens.isEmpty { return flowNode(roots[0].id) }
        guard !roots.isEmpty || !hostScreens.isEmpty else { return nil }
        // Several root flows, or screens left in place by a finished root flow: show the host.
        var host = Flowd_V1_FlowNode()
        host.type = "host"
        host.screenIds = hostScreens.map(\.rawValue)
        host.children = roots.map { flowNode($0.id) }
        return host
    }

    /// The navigation hierarchy in wire form, from the window; `screen`
    /// fills in what the tree says about each screen.
    func wireWindow(_ window: NodeID = .window, screen: (ScreenID, NodeInfo) -> Flowd_V1_ScreenInfo) -> Flowd_V1_NavNode {
        let nodes = Dictionary(uniqueKeysWithValues: self.nodes.map { ($0.id, $0) })
        func navNode(_ id: NodeID) -> Flowd_V1_NavNode {
            var node = Flowd_V1_NavNode()
            node.id = id.rawValue
            guard let info = nodes[id] else { return node }
            node.kind = Flowd_V1_NodeKind(info.kind)
            node.children = info.children.filter { $0 != .none }.map(navNode)
            if let modal = info.modal, modal != .none { node.presented = navNode(modal) }
            node.selectedTab = UInt32(info.selectedTab ?? 0)
            if info.kind == .screen { node.screen = screen(id, info) }
            return node
        }
        return navNode(window)
    }

    /// The windows flows opened, in wire form (`Tree.other_windows`).
    func wireOtherWindows(screen: (ScreenID, NodeInfo) -> Flowd_V1_ScreenInfo) -> [Flowd_V1_OtherWindow] {
        otherWindows.map { info in
            var window = Flowd_V1_OtherWindow()
            window.window = wireWindow(info.id, screen: screen)
            window.display = info.display
            window.visibleScreen = info.visibleScreen?.rawValue ?? 0
            return window
        }
    }
}

extension Flowd_V1_Tree {
    /// Where the user is, as links: the main window's (`place`) and each other window's (set after
    /// `other_windows`, which lists the windows in the runtime's order).
    mutating func setPlaces(of runtime: FlowRuntime) {
        if let place = runtime.place { self.place = "\(place)" }
        for (index, window) in runtime.windowPlaces.enumerated() where index < otherWindows.count {
            if let link = window.link { otherWindows[index].place = "\(link)" }
        }
    }
}

extension Flowd_V1_ScreenInfo {
    /// What the flows alone say of a screen (kind, owner, visibility): a tree without hosts, as a
    /// replay or a moment of the history has it.
    init(flowsView info: DebugTree.NodeInfo) {
        self.init()
        kind = info.screenKind ?? ""
        flowID = info.owner?.rawValue ?? 0
        visible = info.placement?.isVisible ?? false
    }
}

extension Flowd_V1_NodeKind {
    /// The wire form of a node's kind (the debug tree's and the display's scene).
    init(_ kind: NodeKind) {
        switch kind {
        case .window: self = .window
        case .stack: self = .stack
        case .tabBar: self = .tabBar
        case .screen: self = .screen
        }
    }
}
