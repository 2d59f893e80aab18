import FlowWire

/// Renders a daemon's `Tree` as a Graphviz digraph (`flowctl dot`): the
/// flow hierarchy (rounded boxes) and the navigation hierarchy (window,
/// stacks, tab bars, screens), with a dotted edge from each flow to the
/// screens it owns. Visible screens are filled; modals are dashed edges.
public enum DotRenderer {
    /// The digraph source, ending with a newline.
    public static func render(_ tree: Flowd_V1_Tree) -> String {
        var out = ["digraph flowd {", "  label=\(quote("flowd app \(tree.app)"))", "  labelloc=t", "  rankdir=TB",
                   "  node [fontname=\"Helvetica\" fontsize=11]", "  edge [fontname=\"Helvetica\" fontsize=9]"]
        var ownership: [String] = []
        func flow(_ node: Flowd_V1_FlowNode, parent: String?) {
            let id = "f\(node.id)"
            let label = node.type == "host" && node.id == 0 ? "host" : "flow \(node.id)\n\(node.type)"
            out.append("  \(id) [label=\(quote(label)) shape=box style=\"rounded,filled\" fillcolor=\"#e8e0f8\"]")
            if let parent { out.append("  \(parent) -> \(id)") }
            for screen in node.screenIds { ownership.append("  \(id) -> n\(screen) [style=dotted color=gray50 arrowhead=none]") }
            for child in node.children { flow(child, parent: id) }
        }
        if tree.hasRootFlow { flow(tree.rootFlow, parent: nil) }
        func nav(_ node: Flowd_V1_NavNode) {
            let id = "n\(node.id)"
            switch node.kind {
            case .window:
                out.append("  \(id) [label=\"window\" shape=folder]")
            case .stack:
                out.append("  \(id) [label=\(quote("stack \(node.id)")) shape=box3d]")
            case .tabBar:
                out.append("  \(id) [label=\(quote("tab bar \(node.id)\ntab \(node.selectedTab + 1) selected")) shape=tab]")
            case .screen:
                let screen = node.screen
                var label = "screen \(node.id)\n\(screen.kind)"
                if screen.lastSerial > screen.ackedSerial { label += "\npending ack" }
                let fill = screen.visible ? "#c8f0c8" : "#f4f4f4"
                out.append("  \(id) [label=\(quote(label)) shape=box style=filled fillcolor=\"\(fill)\"]")
            default:
                out.append("  \(id) [label=\(quote("node \(node.id)"))]")
            }
            for (index, child) in node.children.enumerated() {
                var label = node.kind == .stack ? "\(index)" : node.kind == .tabBar ? "\(index + 1)" : ""
                if node.kind == .tabBar && UInt32(index) == node.selectedTab { label += "*" }
                out.append("  \(id) -> n\(child.id)\(label.isEmpty ? "" : " [label=\(quote(label))]")")
                nav(child)
            }
            if node.hasPresented {
                out.append("  \(id) -> n\(node.presented.id) [style=dashed label=\"presents\"]")
                nav(node.presented)
            }
        }
        if tree.hasWindow { nav(tree.window) }
        out.append(contentsOf: ownership)
        out.append("}")
        return out.joined(separator: "\n") + "\n"
    }

    private static func quote(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": quoted += "\\\\"
            case "\"": quoted += "\\\""
            case "\n": quoted += "\\n"
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}
