import FlowWire

/// Views of a debug tree that depend only on the flows, not on hosts, serials or processes: what a
/// restore or a deep link must reproduce (the daemon's own is `TreeShape`, which these tests
/// cannot import).
extension Flowd_V1_Tree {
    /// One line per flow and per navigation node, indented.
    var shapeLines: [String] {
        var lines: [String] = []
        func flow(_ node: Flowd_V1_FlowNode, _ depth: Int) {
            lines.append(String(repeating: " ", count: depth) + "flow \(node.id) \(node.type) screens \(node.screenIds)")
            node.children.forEach { flow($0, depth + 1) }
        }
        func nav(_ node: Flowd_V1_NavNode, _ depth: Int) {
            let info = node.kind == .screen ? " \(node.screen.kind) of \(node.screen.flowID)\(node.screen.visible ? " visible" : "")" : ""
            lines.append(String(repeating: " ", count: depth) + "\(node.kind) \(node.id)\(info) tab \(node.selectedTab)")
            node.children.forEach { nav($0, depth + 1) }
            if node.hasPresented { nav(node.presented, depth + 1) }
        }
        if hasRootFlow { flow(rootFlow, 0) }
        if hasWindow { nav(window, 0) }
        for other in otherWindows {
            lines.append("on \(other.display) visible \(other.visibleScreen)")
            nav(other.window, 1)
        }
        return lines
    }

    /// The visible screens: id and kind.
    var visibleScreens: [(id: UInt64, kind: String)] {
        var found: [(UInt64, String)] = []
        func walk(_ node: Flowd_V1_NavNode) {
            if node.kind == .screen, node.screen.visible { found.append((node.id, node.screen.kind)) }
            node.children.forEach(walk)
            if node.hasPresented { walk(node.presented) }
        }
        walk(window)
        return found
    }

    /// The type names of the running flows, depth first.
    var flowTypes: [String] {
        var types: [String] = []
        func walk(_ node: Flowd_V1_FlowNode) {
            types.append(node.type)
            node.children.forEach(walk)
        }
        if hasRootFlow { walk(rootFlow) }
        return types
    }
}
