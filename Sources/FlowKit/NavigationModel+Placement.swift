extension NavigationModel {
    /// The screen the user sees in `window` (the main one by default): from the window, follow modals
    /// first, then the top of stacks and the selected tab. O(depth).
    package func front(of window: NodeID = .window) -> NodeID? {
        var current = window
        while let node = nodes[current] {
            if node.modal != .none { current = node.modal; continue }
            switch node.kind {
            case .screen: return current
            case .window, .stack:
                guard let next = node.children.last else { return nil }
                current = next
            case .tabBar:
                let next = node.children[node.selectedTab]
                if next == .none { return nil }
                current = next
            }
        }
        return nil
    }

    /// Whether the user can reach the node: it lies on the path from the window to the front (in the
    /// selected tab, on top of its stack) and no modal is presented on it or anything in front of it.
    /// An empty selected tab still leaves its tab bar reachable. O(depth).
    package func isUncovered(_ id: NodeID) -> Bool {
        guard var current = windowOf(id) else { return false }
        var found = false
        while let node = nodes[current] {
            if current == id { found = true }
            if node.modal != .none {
                if found { return false }
                current = node.modal
                continue
            }
            switch node.kind {
            case .screen: return found
            case .window, .stack:
                guard let next = node.children.last else { return found }
                current = next
            case .tabBar:
                let next = node.children[node.selectedTab]
                if next == .none { return found }
                current = next
            }
        }
        return found
    }

    /// The placement of a live, attached screen. O(depth).
    package func placement(of id: NodeID, front: NodeID?) -> Placement {
        guard let node = nodes[id], let first = step(from: node) else {
            return Placement(path: [], index: 0, isTopMost: true, isVisible: id == front)
        }
        return placement(of: id, node, front: front, path: path(from: first, above: node))
    }

    /// The front of every window a flow opened (the main window's is `front()`); empty with one window.
    package func otherFronts() -> [NodeID] {
        otherWindows.isEmpty ? [] : otherWindows.compactMap { front(of: $0.window) }
    }

    /// The placement of a live, attached screen, its path the same array as the screens' before it
    /// in the same container (`paths`, by the path's last step). A screen keeps its placement while
    /// it lives (the delivery, to place it again): one path array per container, not one per screen
    /// (88 bytes a screen on `live-screens`, where each of a push's 999 screens is a commit of its own).
    func placement(of id: NodeID, front: NodeID?, sharing paths: inout [PlacementStep: [PlacementStep]]) -> Placement {
        guard let node = nodes[id], let first = step(from: node) else {
            return Placement(path: [], index: 0, isTopMost: true, isVisible: id == front)
        }
        var steps = path(from: first, above: node)
        // Checked, not trusted: a container that moved since gives another path under the same step.
        if let shared = paths[first], shared == steps { steps = shared } else { paths[first] = steps }
        return placement(of: id, node, front: front, path: steps)
    }

    /// Screen `id` (its `node`) at `path`: its index, whether it is top-most, whether it is `front`.
    private func placement(of id: NodeID, _ node: Node, front: NodeID?, path: [PlacementStep]) -> Placement {
        var index = 0
        var topMost = true
        if case .stackChild(let position) = node.relation {
            index = position
            topMost = position == (nodes[node.parent]?.children.count ?? 0) - 1
        }
        // In a window a flow opened, the screen is visible when it is that window's front.
        var visible = id == front
        if !visible, !otherWindows.isEmpty, case .otherWindow(let window, _)? = path.first { visible = self.front(of: window) == id }
        return Placement(path: path, index: index, isTopMost: topMost, isVisible: visible)
    }

    /// The path from the window down to `first`, the step of `node`'s own container.
    private func path(from first: PlacementStep, above node: Node) -> [PlacementStep] {
        var steps = [first]
        var current = node.parent
        while let container = nodes[current], let step = step(from: container) {
            steps.append(step)
            current = container.parent
        }
        // A modal presented on a window a flow opened (its `Window` context) starts at that window.
        if current != .window, nodes[current]?.kind == .window, let last = steps.last, case .modal = last {
            steps.append(.otherWindow(current, display: display(of: current) ?? ""))
        }
        steps.reverse()
        return steps
    }

    /// Forgets the shared paths whose last step is inside `node` (removed as `id`).
    mutating func forgetSharedPaths(of id: NodeID, _ node: Node) {
        guard !sharedPaths.isEmpty else { return }
        sharedPaths[.modal(presenter: id)] = nil
        switch node.kind {
        case .stack: sharedPaths[.stack(id)] = nil
        case .tabBar:
            for tab in node.children.indices { sharedPaths[.tab(bar: id, index: tab, count: node.children.count)] = nil }
        case .window: sharedPaths = sharedPaths.filter { step, _ in if case .otherWindow(id, _) = step { false } else { true } }
        case .screen: break
        }
    }

    /// Drops the shared paths of containers that are gone (a safety net beside `forgetSharedPaths`),
    /// once there are twice as many as after the last time (amortized O(1) a commit).
    private mutating func pruneSharedPaths() {
        guard sharedPaths.count >= pruneSharedPathsAt else { return }
        sharedPaths = sharedPaths.filter { step, _ in
            switch step {
            case .window: true
            case .otherWindow(let id, _), .stack(let id), .tab(let id, _, _), .modal(let id): nodes.contains(id)
            }
        }
        pruneSharedPathsAt = max(64, sharedPaths.count * 2)
    }

    /// The container `node` hangs in, as a step of a path; nil for a node that hangs from nothing.
    private func step(from node: Node) -> PlacementStep? {
        switch node.relation {
        case .none: nil
        case .windowContent: node.parent == .window ? .window : .otherWindow(node.parent, display: display(of: node.parent) ?? "")
        case .stackChild: .stack(node.parent)
        case .tab(let tab): .tab(bar: node.parent, index: tab, count: nodes[node.parent]?.children.count ?? 0)
        case .modal: .modal(presenter: node.parent)
        }
    }

    /// Reports what changed since the last commit: screens placed and screens whose placement changed.
    package mutating func commit() -> [Change] {
        let front = front()
        var changes: [Change] = []
        var reported: Set<NodeID> = []
        // Moved out while `placement(of:front:sharing:)` reads the model.
        var paths = sharedPaths
        sharedPaths = [:]
        for id in placedSinceCommit where nodes.contains(id) && isAttached(id) && !reported.contains(id) {
            reported.insert(id)
            let placement = placement(of: id, front: front, sharing: &paths)
            record(placement, for: id)
            changes.append(.placed(id, placement))
        }
        var candidates = touched
        if let old = frontAtCommit { candidates.insert(old) }
        if let front { candidates.insert(front) }
        // Other windows' fronts, then and now: usually none (one window), so nothing allocates.
        let otherFronts = otherFronts()
        candidates.formUnion(otherFrontsAtCommit)
        candidates.formUnion(otherFronts)
        for id in candidates.sorted() where !reported.contains(id) {
            guard let node = nodes[id], node.kind == .screen, node.reportedIndex >= 0 else { continue }
            let placement = placement(of: id, front: front, sharing: &paths)
            let change: PlacementChange
            if placement.isVisible != node.reportedVisible {
                if switchedTab(in: placement) {
                    change = placement.isVisible ? .tabSelected : .tabDeselected
                } else {
                    change = placement.isVisible ? .uncovered : .covered
                }
            } else if placement.isTopMost != node.reportedTopMost {
                change = placement.isTopMost ? .uncovered : .covered
            } else if placement.index != Int(node.reportedIndex) {
                change = .moved
            } else {
                continue
            }
            record(placement, for: id)
            changes.append(.changed(id, placement, change))
        }
        placedSinceCommit.removeAll(keepingCapacity: true)
        touched.removeAll(keepingCapacity: true)
        tabSwitchesSinceCommit.removeAll(keepingCapacity: true)
        frontAtCommit = front
        otherFrontsAtCommit = otherFronts
        sharedPaths = paths
        pruneSharedPaths()
        return changes
    }

    /// Whether a tab bar on the placement's path changed its selection since the last commit.
    private func switchedTab(in placement: Placement) -> Bool {
        guard !tabSwitchesSinceCommit.isEmpty else { return false }
        return placement.path.contains { step in
            if case .tab(let bar, _, _) = step { tabSwitchesSinceCommit.contains(bar) } else { false }
        }
    }

    private mutating func record(_ placement: Placement, for id: NodeID) {
        nodes[id]!.reportedIndex = Int32(clamping: placement.index)
        nodes[id]!.reportedVisible = placement.isVisible
        nodes[id]!.reportedTopMost = placement.isTopMost
    }

    /// The content on top of `stack`, if any.
    package func top(of stack: NodeID) -> NodeID? { nodes[stack]?.children.last }

    /// The nearest tab bar around a node without crossing a modal. O(depth).
    package func enclosingTabBar(of id: NodeID) -> NodeID? {
        var current = id
        while let node = nodes[current] {
            switch node.relation {
            case .tab: return node.parent
            case .stackChild: current = node.parent
            case .none, .windowContent, .modal: return nil
            }
        }
        return nil
    }

    /// The root of the nearest modal around a node (the node presented on something). O(depth).
    package func enclosingModalRoot(of id: NodeID) -> NodeID? {
        var current = id
        while let node = nodes[current] {
            switch node.relation {
            case .modal: return current
            case .none, .windowContent: return nil
            case .stackChild, .tab: current = node.parent
            }
        }
        return nil
    }
}
