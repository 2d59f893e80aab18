/// The navigation hierarchy: windows, stacks, tab bars and screens; any node presents at most one
/// modal. The main window (`NodeID.window`) always exists; a flow may open more, each on a display
/// (`createWindow(display:)`), each with its own content and modals, and a screen is visible when
/// it is the front of its own window (docs/windows.md). Operations cost in proportion to the depth
/// they touch; `commit()` reports what changed.
package struct NavigationModel {
    /// How a node hangs from its parent.
    package enum Relation: Hashable, Sendable {
        /// Detached (or a window).
        case none
        /// A window's content.
        case windowContent
        /// Child `index` of a stack (0 is the bottom).
        case stackChild(Int)
        /// Content of tab `index` of a tab bar.
        case tab(Int)
        /// The modal presented by the parent.
        case modal
    }

    /// One node. Screens carry their owning flow and the placement last reported to them. The
    /// fields are ordered by size, so the small ones share the last word: 56 bytes a node, not 72
    /// (one per live screen; docs/performance.md, "Memory").
    package struct Node: Equatable {
        /// The container or presenter; `.none` for the window and detached nodes.
        package var parent: NodeID = .none
        /// Window: 0 or 1 content; stack: bottom to top; tab bar: one slot per tab (`.none` = empty).
        package var children: [NodeID] = []
        /// The presented modal, or `.none`.
        package var modal: NodeID = .none
        /// The flow owning a screen (screens only).
        package var owner: FlowID = .host
        /// The selected tab (tab bars only).
        package var selectedTab: Int = 0
        /// How the node hangs from `parent`.
        package var relation: Relation = .none
        /// Window, stack, tab bar or screen.
        package var kind: NodeKind
        /// Last reported visibility, top-most flag and index (screens only).
        var reportedVisible = false
        var reportedTopMost = false
        var reportedIndex: Int32 = -1

        init(kind: NodeKind, owner: FlowID = .host) {
            self.kind = kind
            self.owner = owner
        }
    }

    /// A node removed by `remove(_:)`, in removal order (top-most first).
    package struct Removed: Hashable, Sendable {
        /// The removed node.
        package var id: NodeID
        /// What it was.
        package var kind: NodeKind
        /// Its owner (meaningful for screens).
        package var owner: FlowID
    }

    /// A change `commit()` reports for a live screen.
    package enum Change: Hashable, Sendable {
        /// A screen was attached at this placement.
        case placed(ScreenID, Placement)
        /// A screen's placement changed.
        case changed(ScreenID, Placement, PlacementChange)
    }

    /// Every live node by id.
    package internal(set) var nodes: NodeTable<Node> = [NodeID.window: Node(kind: .window)]
    /// The windows flows opened beside the main one, oldest first, with the display each is on.
    package private(set) var otherWindows: [(window: NodeID, display: String)] = []
    /// The id the next node gets (its natural id; see `assignedIDs`).
    package internal(set) var nextID: UInt64 = 2
    /// While a runtime rebuilds a checkpoint: the id each natural id becomes (`IDAssignment`).
    var assignedIDs: [UInt64: UInt64]?
    var placedSinceCommit: [NodeID] = []
    var touched: Set<NodeID> = []
    var frontAtCommit: NodeID? = nil
    var otherFrontsAtCommit: [NodeID] = []
    /// Tab bars whose selection changed since the last commit: their screens hear `.tabSelected`/`.tabDeselected`.
    var tabSwitchesSinceCommit: Set<NodeID> = []
    /// Containers that must not be collected while something is being placed into them.
    private var pinned: Set<NodeID> = []
    /// The path of the screens in each container, by its last step, shared by their placements.
    var sharedPaths: [PlacementStep: [PlacementStep]] = [:]
    /// When `sharedPaths` is next pruned of containers that are gone.
    var pruneSharedPathsAt = 64

    /// An empty model: a window without content.
    package init() {}

    /// The number of live screens.
    package private(set) var screenCount = 0

    /// The node with this id, if live.
    package subscript(id: NodeID) -> Node? { nodes[id] }

    /// Whether the node is live.
    package func contains(_ id: NodeID) -> Bool { nodes.contains(id) }

    /// Whether the node hangs somewhere under a window (walks up: O(depth)).
    package func isAttached(_ id: NodeID) -> Bool { windowOf(id) != nil }

    /// The window a node hangs under (itself for a window), or nil when it is detached. O(depth).
    package func windowOf(_ id: NodeID) -> NodeID? {
        var current = id
        while let node = nodes[current] {
            if node.kind == .window { return current } // windows exist only while registered
            if node.parent == .none { return nil }
            current = node.parent
        }
        return nil
    }

    /// Every window: the main one first, then those flows opened, oldest first.
    package var windows: [NodeID] { [.window] + otherWindows.map(\.window) }

    /// The display a window is on: "" for the main window (the app's own display).
    package func display(of window: NodeID) -> String? {
        window == .window ? "" : otherWindows.first { $0.window == window }?.display
    }

    // MARK: creating

    /// Creates a detached screen owned by `owner`.
    package mutating func createScreen(owner: FlowID) -> NodeID {
        let id = makeID()
        nodes[id] = Node(kind: .screen, owner: owner)
        screenCount += 1
        return id
    }

    /// Opens a window on `display`, empty; it closes (is removed) when its content goes.
    package mutating func createWindow(display: String) -> NodeID {
        let id = makeID()
        nodes[id] = Node(kind: .window)
        otherWindows.append((id, display))
        return id
    }

    /// Creates a detached stack (`tabCount == 0`) or tab bar with `tabCount` empty tabs.
    package mutating func createContainer(_ kind: NodeKind, tabCount: Int = 0) -> NodeID {
        precondition(kind == .stack || kind == .tabBar, "containers are stacks or tab bars")
        let id = makeID()
        var node = Node(kind: kind)
        if kind == .tabBar { node.children = Array(repeating: .none, count: tabCount) }
        nodes[id] = node
        return id
    }

    /// Deletes a node that was never attached (a placement that failed).
    package mutating func deleteDetached(_ id: NodeID) {
        guard let node = nodes[id], node.parent == .none, id != .window else { return }
        _ = remove(id)
    }

    private mutating func makeID() -> NodeID {
        defer { nextID += 1 }
        guard let assignedIDs else { return NodeID(rawValue: nextID) }
        return NodeID(rawValue: assignedIDs[nextID] ?? IDAssignment.transient(nextID))
    }

    // MARK: attaching

    /// Makes a detached node a window's content (the main window's by default); the window must be empty.
    package mutating func setWindowContent(_ id: NodeID, of window: NodeID = .window) {
        precondition(nodes[window]!.children.isEmpty, "window content must be removed first")
        nodes[window]!.children = [id]
        hang(id, from: window, .windowContent)
    }

    /// Pushes a detached screen onto a stack.
    package mutating func push(_ id: NodeID, onto stack: NodeID) {
        let count = nodes[stack]!.children.count
        if count > 0 { touched.insert(nodes[stack]!.children[count - 1]) }
        nodes[stack]!.children.append(id)
        hang(id, from: stack, .stackChild(count))
    }

    /// Puts a detached node into an empty tab slot.
    package mutating func setTab(_ id: NodeID, of bar: NodeID, at index: Int) {
        precondition(nodes[bar]!.children[index] == .none, "tab content must be removed first")
        nodes[bar]!.children[index] = id
        hang(id, from: bar, .tab(index))
    }

    /// Presents a detached node on `presenter`, which presents nothing yet.
    package mutating func present(_ id: NodeID, on presenter: NodeID) {
        precondition(nodes[presenter]!.modal == .none, "one modal per node")
        nodes[presenter]!.modal = id
        hang(id, from: presenter, .modal)
    }

    private mutating func hang(_ id: NodeID, from parent: NodeID, _ relation: Relation) {
        nodes[id]!.parent = parent
        nodes[id]!.relation = relation
        collectScreens(under: id) { placedSinceCommit.append($0) }
    }

    /// Calls `body` for every screen in the subtree (a fresh subtree is small: a container and its content).
    private func collectScreens(under id: NodeID, _ body: (NodeID) -> Void) {
        guard let node = nodes[id] else { return }
        if node.kind == .screen { body(id) }
        for child in node.children where child != .none { collectScreens(under: child, body) }
        if node.modal != .none { collectScreens(under: node.modal, body) }
    }

    /// Keeps a container alive while it is momentarily empty.
    package mutating func pin(_ id: NodeID) { pinned.insert(id) }

    /// Lets an empty container be collected again (collects it now if it is empty).
    package mutating func unpin(_ id: NodeID) -> [Removed] {
        pinned.remove(id)
        guard let node = nodes[id], node.kind != .screen, id != .window, isEmpty(node) else { return [] }
        return remove(id)
    }

    /// Changes the owner of a screen (adoption).
    package mutating func setOwner(_ id: NodeID, _ owner: FlowID) {
        nodes[id]?.owner = owner
    }

    /// Selects a tab of a tab bar.
    package mutating func selectTab(_ index: Int, of bar: NodeID) {
        if nodes[bar]!.selectedTab != index { tabSwitchesSinceCommit.insert(bar) }
        nodes[bar]!.selectedTab = index
    }

    // MARK: removing

    /// Removes a node and everything on it (content, modals); a container left empty goes too.
    /// Screens above it in a stack move down. Returns removed nodes, top-most first.
    package mutating func remove(_ root: NodeID) -> [Removed] {
        guard let node = nodes[root], root != .window else { return [] }
        var out: [Removed] = []
        collect(root, into: &out)
        detach(root, relation: node.relation, from: node.parent, into: &out)
        return out
    }

    private mutating func collect(_ id: NodeID, into out: inout [Removed]) {
        guard let node = nodes[id] else { return }
        if node.modal != .none { collect(node.modal, into: &out) }
        for child in node.children.reversed() where child != .none { collect(child, into: &out) }
        nodes[id] = nil
        pinned.remove(id)
        if node.kind == .screen { screenCount -= 1 }
        if node.kind == .window { otherWindows.removeAll { $0.window == id } }
        forgetSharedPaths(of: id, node)
        out.append(Removed(id: id, kind: node.kind, owner: node.owner))
    }

    private mutating func detach(_ child: NodeID, relation: Relation, from parent: NodeID, into out: inout [Removed]) {
        guard parent != .none, nodes.contains(parent) else { return }
        switch relation {
        case .none:
            return
        case .windowContent:
            nodes[parent]!.children.removeAll()
        case .modal:
            nodes[parent]!.modal = .none
        case .tab(let index):
            nodes[parent]!.children[index] = .none
        case .stackChild(let index):
            nodes[parent]!.children.remove(at: index)
            let siblings = nodes[parent]!.children
            for position in index..<siblings.count {
                nodes[siblings[position]]!.relation = .stackChild(position)
                touched.insert(siblings[position])
            }
            if index == siblings.count, index > 0 { touched.insert(siblings[index - 1]) }
        }
        let container = nodes[parent]!
        // An empty container goes, and so does a window a flow opened (the main one stays).
        let collectable = container.kind == .stack || container.kind == .tabBar || (container.kind == .window && parent != .window)
        if collectable, !pinned.contains(parent), isEmpty(container) {
            collect(parent, into: &out)
            detach(parent, relation: container.relation, from: container.parent, into: &out)
        }
    }

    private func isEmpty(_ container: Node) -> Bool {
        container.children.allSatisfy { $0 == .none }
    }
}
