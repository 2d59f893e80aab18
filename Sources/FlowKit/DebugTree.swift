/// A read-only snapshot of a runtime for debug clients: flows, nodes, owners, visibility.
/// Building it scans everything; it is for inspection, not for the hot path.
public struct DebugTree: Hashable, Codable, Sendable {
    /// One running flow.
    public struct FlowInfo: Hashable, Codable, Sendable {
        /// The flow's id.
        public var id: FlowID
        /// The flow's Swift type name (`host` for the runtime's host).
        public var typeName: String
        /// The parent flow (`nil` for the host).
        public var parent: FlowID?
        /// Running sub-flows, oldest first.
        public var subFlows: [FlowID]
        /// Screens it owns, in placement order.
        public var screens: [ScreenID]
        /// The screen its lifetime is tied to.
        public var initialScreen: ScreenID?
    }

    /// One node of the navigation model.
    public struct NodeInfo: Hashable, Codable, Sendable {
        /// The node's id.
        public var id: NodeID
        /// Window, stack, tab bar or screen.
        public var kind: NodeKind
        /// The screen kind name (screens only).
        public var screenKind: String?
        /// The owning flow (screens only).
        public var owner: FlowID?
        /// Content in order: stack bottom to top, one entry per tab (`.none` = empty tab).
        public var children: [NodeID]
        /// The modal it presents.
        public var modal: NodeID?
        /// The selected tab (tab bars only).
        public var selectedTab: Int?
        /// Where the screen is (screens only).
        public var placement: Placement?
    }

    /// The host first, then flows by id.
    public var flows: [FlowInfo]
    /// Nodes depth-first from each window, the main one first (content before modal).
    public var nodes: [NodeInfo]
    /// The visible screen of the main window.
    public var visibleScreen: ScreenID?
    /// The windows flows opened beside the main one, oldest first: each one's node, display and
    /// visible screen. Empty with one window (and in trees from before windows).
    public var otherWindows: [WindowInfo] = []

    /// A window a flow opened.
    public struct WindowInfo: Hashable, Codable, Sendable {
        /// The window's node.
        public var id: NodeID
        /// The display it is on.
        public var display: String
        /// Its visible screen.
        public var visibleScreen: ScreenID?

        /// A window's entry.
        public init(id: NodeID, display: String, visibleScreen: ScreenID?) {
            self.id = id
            self.display = display
            self.visibleScreen = visibleScreen
        }
    }
}

extension FlowRuntime {
    /// A snapshot of flows and the navigation model (scans everything; for debugging and tests).
    public func debugTree() -> DebugTree {
        let front = model.front()
        var flowInfos: [DebugTree.FlowInfo] = []
        for flow in [host] + controllers.values.sorted(by: { $0.id < $1.id }) {
            flowInfos.append(.init(id: flow.id, typeName: flow.typeName, parent: flow.id == .host ? nil : (flow.parent?.id ?? .host),
                                   subFlows: flow.children.keys.sorted(), screens: flow.liveItems, initialScreen: flow.initialScreen))
        }
        var nodeInfos: [DebugTree.NodeInfo] = []
        var pending: [NodeID] = model.windows.reversed()
        while let id = pending.popLast() {
            guard let node = model[id] else { continue }
            nodeInfos.append(.init(id: id, kind: node.kind,
                                   screenKind: node.kind == .screen ? screens[id]?.outlet.kind : nil,
                                   owner: node.kind == .screen ? node.owner : nil,
                                   children: node.children, modal: node.modal == .none ? nil : node.modal,
                                   selectedTab: node.kind == .tabBar ? node.selectedTab : nil,
                                   placement: node.kind == .screen ? model.placement(of: id, front: front) : nil))
            if node.modal != .none { pending.append(node.modal) }
            pending.append(contentsOf: node.children.reversed().filter { $0 != .none })
        }
        var tree = DebugTree(flows: flowInfos, nodes: nodeInfos, visibleScreen: front)
        tree.otherWindows = model.otherWindows.map { .init(id: $0.window, display: $0.display, visibleScreen: model.front(of: $0.window)) }
        return tree
    }

    /// The placement of a live screen.
    public func placement(of screen: ScreenID) -> Placement? {
        guard model[screen]?.kind == .screen, model.isAttached(screen) else { return nil }
        return model.placement(of: screen, front: model.front())
    }

    /// The owning flow of a live screen (`.host` for what root flows left in place).
    public func owner(of screen: ScreenID) -> FlowID? {
        model[screen]?.kind == .screen ? model[screen]?.owner : nil
    }

    /// The kind name of a live screen.
    public func kind(of screen: ScreenID) -> String? { screens[screen]?.outlet.kind }

    /// The visible screen, if any.
    public var visibleScreen: ScreenID? { model.front() }

    /// The type name of a running flow.
    public func typeName(of flow: FlowID) -> String? { controller(flow)?.typeName }

    /// Running flows' ids.
    public var runningFlows: [FlowID] { controllers.keys.sorted() }

    /// The live screens a flow owns, in placement order.
    public func screens(of flow: FlowID) -> [ScreenID] { controller(flow)?.liveItems ?? [] }

    /// Running sub-flows of a flow (or of the host), oldest first.
    public func subFlows(of flow: FlowID) -> [FlowID] { controller(flow)?.children.keys.sorted() ?? [] }
}
