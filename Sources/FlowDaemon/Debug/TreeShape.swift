import FlowKit
import FlowWire

/// The part of a debug tree that depends only on the flows (ids, types,
/// owners, containers, visibility), not on hosts, processes or acks: what a
/// replay must reproduce. One line per flow or node, indented.
package enum TreeShape {
    /// The shape of a recorded tree.
    package static func lines(_ tree: Flowd_V1_Tree) -> [String] {
        var lines: [String] = []
        if tree.hasRootFlow { flowLines(tree.rootFlow, depth: 0, into: &lines) }
        if tree.hasWindow { navLines(tree.window, depth: 0, into: &lines) }
        for other in tree.otherWindows {
            lines.append("on the display \(other.display)")
            navLines(other.window, depth: 1, into: &lines)
        }
        return lines
    }

    /// The shape of a runtime's current tree.
    package static func lines(of runtime: FlowRuntime) -> [String] {
        let snapshot = runtime.debugTree()
        var tree = Flowd_V1_Tree()
        if let root = snapshot.wireRootFlow() { tree.rootFlow = root }
        tree.window = snapshot.wireWindow { _, info in Flowd_V1_ScreenInfo(flowsView: info) }
        tree.otherWindows = snapshot.wireOtherWindows { _, info in Flowd_V1_ScreenInfo(flowsView: info) }
        return lines(tree)
    }

    /// The first line that differs, quoted from both sides.
    package static func firstDifference(_ recorded: [String], _ replayed: [String]) -> String? {
        for index in 0..<max(recorded.count, replayed.count) {
            let left = index < recorded.count ? recorded[index] : "(nothing)"
            let right = index < replayed.count ? replayed[index] : "(nothing)"
            if left != right { return "recorded '\(left.trimmingPrefixSpaces)', replayed '\(right.trimmingPrefixSpaces)'" }
        }
        return nil
    }

    private static func flowLines(_ node: Flowd_V1_FlowNode, depth: Int, into lines: inout [String]) {
        lines.append(String(repeating: " ", count: depth * 2) + "flow \(node.id) \(node.type) screens \(node.screenIds)")
        for child in node.children { flowLines(child, depth: depth + 1, into: &lines) }
    }

    private static func navLines(_ node: Flowd_V1_NavNode, depth: Int, into lines: inout [String]) {
        let indent = String(repeating: " ", count: depth * 2)
        switch node.kind {
        case .screen:
            lines.append(indent + "screen \(node.id) \(node.screen.kind) of flow \(node.screen.flowID)\(node.screen.visible ? " visible" : "")")
        case .tabBar:
            lines.append(indent + "tabs \(node.id) selected \(node.selectedTab)")
        default:
            lines.append(indent + "\(node.kind) \(node.id)")
        }
        for child in node.children { navLines(child, depth: depth + 1, into: &lines) }
        if node.hasPresented {
            lines.append(indent + "presents")
            navLines(node.presented, depth: depth + 1, into: &lines)
        }
    }
}

private extension String {
    var trimmingPrefixSpaces: Substring { drop { $0 == " " } }
}
