extension FlowRuntime {
    /// Checks the whole runtime and returns every broken invariant (empty when sound). Scans
    /// everything: for tests, never for the hot path. Checks: the model is a tree under the window with
    /// consistent links and no empty containers; every screen has exactly one live owner that lists it;
    /// every flow's screens are placed; the flow index matches the flow tree; every outstanding request
    /// belongs to a running flow that lists it.
    public func invariantViolations() -> [String] {
        var problems: [String] = []
        // Tree shape: reach everything from the window.
        var reached: Set<NodeID> = []
        var pending: [NodeID] = model.windows.reversed()
        for window in model.windows.dropFirst() where model[window]?.children.isEmpty ?? true {
            problems.append("window \(window) is open and empty")
        }
        while let id = pending.popLast() {
            guard let node = model[id] else { problems.append("\(id) is linked but not live"); continue }
            guard reached.insert(id).inserted else { problems.append("\(id) is reached twice"); continue }
            for (position, child) in node.children.enumerated() where child != .none {
                guard let c = model[child] else { problems.append("\(id) links missing child \(child)"); continue }
                if c.parent != id { problems.append("\(child) has parent \(c.parent), expected \(id)") }
                let expected: NavigationModel.Relation
                switch node.kind {
                case .window: expected = .windowContent
                case .stack: expected = .stackChild(position)
                case .tabBar: expected = .tab(position)
                case .screen: expected = .none; problems.append("screen \(id) has children")
                }
                if c.relation != expected { problems.append("\(child) relation \(c.relation), expected \(expected)") }
                if node.kind == .stack, c.kind != .screen { problems.append("stack \(id) holds a \(c.kind)") }
                pending.append(child)
            }
            if node.modal != .none {
                if let m = model[node.modal] {
                    if m.parent != id || m.relation != .modal { problems.append("modal \(node.modal) of \(id) is mislinked") }
                } else {
                    problems.append("\(id) presents missing \(node.modal)")
                }
                pending.append(node.modal)
            }
            if node.kind == .stack || node.kind == .tabBar, node.children.allSatisfy({ $0 == .none }) {
                problems.append("container \(id) is empty")
            }
            if node.kind == .window, node.children.count > 1 { problems.append("window has \(node.children.count) contents") }
            if node.kind == .tabBar, !(0..<node.children.count).contains(node.selectedTab) { problems.append("tab bar \(id) selects \(node.selectedTab)") }
        }
        if reached.count != model.nodes.count {
            problems.append("\(model.nodes.count - reached.count) nodes are not under a window")
        }
        // Ownership.
        var screenCount = 0
        var owned: [FlowID: Set<NodeID>] = [:]
        for (id, node) in model.nodes where node.kind == .screen {
            screenCount += 1
            if let recorded = readRecord(id, { $0.owner }) {
                if recorded != node.owner { problems.append("screen \(id) is owned by \(node.owner), its record says \(recorded)") }
            } else {
                problems.append("screen \(id) has no record")
            }
            guard let owner = controller(node.owner) else { problems.append("screen \(id) is owned by ended \(node.owner)"); continue }
            if !owner.isRunning { problems.append("screen \(id) is owned by non-running \(owner.id)") }
            owned[node.owner, default: []].insert(id)
        }
        if screenCount != model.screenCount { problems.append("screen count \(model.screenCount), found \(screenCount)") }
        if screens.count != screenCount { problems.append("\(screens.count) screen records for \(screenCount) screens") }
        for flow in [host] + Array(controllers.values) {
            let live = Set(flow.liveItems)
            let mine = owned[flow.id] ?? []
            if live != mine { problems.append("\(flow.id) lists \(live.sorted()) but owns \(mine.sorted())") }
            if flow.liveItems.count != live.count { problems.append("\(flow.id) lists a screen twice") }
            if let initial = flow.initialScreen, model[initial]?.owner != flow.id {
                problems.append("\(flow.id) outlived its initial screen \(initial)")
            }
            for (id, child) in flow.children {
                if controllers[id] !== child { problems.append("sub-flow \(id) of \(flow.id) is not indexed") }
                if child.parent !== flow { problems.append("sub-flow \(id) does not point at \(flow.id)") }
            }
            if flow.id != .host, flow.parent?.children[flow.id] !== flow { problems.append("\(flow.id) is not retained by its parent") }
            for id in flow.requests where requests[id]?.request.owner != flow.id { problems.append("\(flow.id) lists \(id), which is not its outstanding request") }
        }
        // Requests: each outstanding one belongs to a running flow that lists it.
        for (id, record) in requests {
            guard let owner = controllers[record.request.owner], owner.isRunning else {
                problems.append("\(id) is outstanding for \(record.request.owner), which is not running")
                continue
            }
            if !owner.requests.contains(id) { problems.append("\(id) is outstanding but \(owner.id) does not list it") }
        }
        return problems
    }
}
