import FlowWire

#if canImport(Glibc)
import Glibc
#endif

/// Renders a daemon's `Tree` as indented text for people (`flowctl tree`):
/// the flows with the screens they own, the navigation hierarchy (stacks
/// bottom first with indexes, tab bars with the selected tab, modals under
/// "presents"), each screen's kind, owner, host, process, visibility and
/// pending acknowledgement, then the connections.
public enum TreeRenderer {
    /// `1 flow`, `2 flows`, `0 flows`.
    static func count(_ number: some BinaryInteger, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }

    /// The whole tree, one line per item, ending with a newline.
    public static func render(_ tree: Flowd_V1_Tree) -> String {
        var out: [String] = []
        let stats = tree.stats
        out.append("flowd app \(tree.app): \(count(stats.flows, "flow")), \(count(stats.screens, "screen")), "
                   + "\(count(stats.connections, "connection")), \(count(stats.pendingAcks, "pending ack")) (event \(tree.lastEventSeq))")
        let hosts = Dictionary(tree.connections.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        flowsAndNavigation(tree, hosts: hosts, into: &out)

        out.append("")
        out.append("connections")
        for connection in tree.connections {
            var line = "  #\(connection.id) \(connection.role)"
            if !connection.name.isEmpty { line += " \(connection.name)" }
            line += " pid \(connection.pid)"
            if connection.spawned { line += connection.pooledKind.isEmpty ? " (spawned)" : " (pooled for \(connection.pooledKind))" }
            if !connection.provides.isEmpty { line += "  provides \(connection.provides.joined(separator: ", "))" }
            if connection.screens > 0 { line += "  \(connection.screens) screen\(connection.screens == 1 ? "" : "s")" }
            if connection.writeQueueBytes > 0 { line += "  \(connection.writeQueueBytes) bytes queued" }
            if !connection.debugPower.isEmpty { line += "  may \(connection.debugPower)" }
            if connection.hasIdentity { line += "\n    peer \(identityLine(connection.identity))" }
            out.append(line)
        }
        if tree.connections.isEmpty { out.append("  (none)") }
        return out.joined(separator: "\n") + "\n"
    }

    /// Who a peer is, on one line: `uid 1000 gid 1000 pid 42 /usr/bin/host unit foo.service`
    /// (unknown parts left out).
    public static func identityLine(_ identity: Flowd_V1_PeerIdentity) -> String {
        var parts = ["uid \(identity.uid)", "gid \(identity.gid)", "pid \(identity.pid)"]
        if !identity.factory.isEmpty { parts.append("spawned for \(identity.factory)") }
        if !identity.executable.isEmpty { parts.append(identity.executable) }
        if !identity.unit.isEmpty { parts.append("unit \(identity.unit)") } else if !identity.cgroup.isEmpty { parts.append("cgroup \(identity.cgroup)") }
        if !identity.securityLabel.isEmpty { parts.append("label \(identity.securityLabel)") }
        return parts.joined(separator: " ")
    }

    /// The audit log (`flowctl audit`), one entry a line, oldest first, ending with a newline:
    /// `#3 2026-12-05T11:00:00Z inject-output screen 5 by #4 uid 0 gid 0 pid 42 /usr/bin/flowctl`,
    /// `REFUSED: ...` after a refused one.
    public static func renderAudit(_ entries: [Flowd_V1_AuditEntry]) -> String {
        guard !entries.isEmpty else { return "no injections or terminations audited since flowd started\n" }
        return entries.map { entry in
            let seconds = Double(entry.timeUnixNanos) / 1e9
            var line = "#\(entry.seq) \(Self.timestamp(seconds)) \(entry.action) \(entry.target) by #\(entry.connectionID) "
                + identityLine(entry.identity)
            if entry.refused { line += "\n    REFUSED: \(entry.message)" }
            return line
        }.joined(separator: "\n") + "\n"
    }

    /// `2026-12-05T11:00:00.123Z`, in UTC.
    private static func timestamp(_ seconds: Double) -> String {
        var time = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        let millis = Int((seconds - seconds.rounded(.down)) * 1000)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let ms = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(ms)Z"
    }

    /// The flows and the navigation hierarchy alone (a moment of the history: `flowctl at`), one line
    /// per item, ending with a newline.
    public static func renderShape(_ tree: Flowd_V1_Tree) -> String {
        var out: [String] = []
        flowsAndNavigation(tree, hosts: nil, into: &out)
        return out.dropFirst().joined(separator: "\n") + "\n"
    }

    private static func flowsAndNavigation(_ tree: Flowd_V1_Tree, hosts: [UInt64: Flowd_V1_ConnectionInfo]?, into out: inout [String]) {
        let flowTypes = flowTypes(tree)
        out.append("")
        out.append("flows")
        if tree.hasRootFlow {
            flowLines(tree.rootFlow, depth: 1, into: &out)
        } else {
            out.append("  (none)")
        }

        out.append("")
        out.append("navigation")
        if tree.hasWindow {
            navLines(tree.window, prefix: "", depth: 1, flowTypes: flowTypes, hosts: hosts, into: &out)
        }
        for other in tree.otherWindows {
            let heading = out.count
            navLines(other.window, prefix: "", depth: 1, flowTypes: flowTypes, hosts: hosts, into: &out)
            if heading < out.count { out[heading] += " on the display \(other.display)" }
        }
        if tree.hasDisplays {
            let displays = tree.displays.displays.map { display in
                var details: [String] = []
                if !display.name.isEmpty { details.append(display.name) }
                if display.width > 0 || display.height > 0 { details.append("\(display.width)×\(display.height)") }
                return details.isEmpty ? display.id : "\(display.id) (\(details.joined(separator: ", ")))"
            }
            out.append("")
            out.append("displays: " + (displays.isEmpty ? "none provided" : displays.joined(separator: ", ")))
        }
    }

    /// Flow type names by id.
    public static func flowTypes(_ tree: Flowd_V1_Tree) -> [UInt64: String] {
        var types: [UInt64: String] = [:]
        func walk(_ node: Flowd_V1_FlowNode) {
            types[node.id] = node.type
            node.children.forEach(walk)
        }
        if tree.hasRootFlow { walk(tree.rootFlow) }
        return types
    }

    private static func flowLines(_ node: Flowd_V1_FlowNode, depth: Int, into out: inout [String]) {
        let indent = String(repeating: "  ", count: depth)
        let screens = node.screenIds.isEmpty ? "no screens" : "screen\(node.screenIds.count == 1 ? "" : "s") "
            + node.screenIds.map(String.init).joined(separator: ", ")
        out.append(node.type == "host" && node.id == 0 ? "\(indent)host  \(screens)" : "\(indent)flow \(node.id) \(node.type)  \(screens)")
        for child in node.children { flowLines(child, depth: depth + 1, into: &out) }
    }

    private static func navLines(
        _ node: Flowd_V1_NavNode, prefix: String, depth: Int, flowTypes: [UInt64: String], hosts: [UInt64: Flowd_V1_ConnectionInfo]?,
        into out: inout [String]
    ) {
        let indent = String(repeating: "  ", count: depth)
        switch node.kind {
        case .window:
            out.append(node.id == 1 || node.id == 0 ? "\(indent)\(prefix)window" : "\(indent)\(prefix)window \(node.id)")
        case .stack:
            out.append("\(indent)\(prefix)stack \(node.id)  \(node.children.count) screen\(node.children.count == 1 ? "" : "s") deep")
        case .tabBar:
            // Tabs count from 1 for people, as the demo's header and `flowctl select-tab` do (JSON keeps the wire's 0).
            out.append("\(indent)\(prefix)tab bar \(node.id)  \(node.children.count) tabs, tab \(node.selectedTab + 1) selected")
        case .screen:
            out.append("\(indent)\(prefix)\(screenLine(node, flowTypes: flowTypes, hosts: hosts))")
        default:
            out.append("\(indent)\(prefix)node \(node.id)")
        }
        for (index, child) in node.children.enumerated() {
            let childPrefix: String
            switch node.kind {
            case .stack: childPrefix = "[\(index)] "
            case .tabBar: childPrefix = "tab \(index + 1)\(UInt32(index) == node.selectedTab ? "*" : ""): "
            default: childPrefix = ""
            }
            navLines(child, prefix: childPrefix, depth: depth + 1, flowTypes: flowTypes, hosts: hosts, into: &out)
        }
        if node.hasPresented {
            navLines(node.presented, prefix: "presents ", depth: depth + 1, flowTypes: flowTypes, hosts: hosts, into: &out)
        }
    }

    /// `screen 4 tutorial  flow 2 OnboardingFlow  host #2 raw-host pid 77  visible  pending ack (sent 3, acked 2)`.
    /// Without `hosts` (a moment of the history) the line leaves out hosts and acknowledgements.
    static func screenLine(_ node: Flowd_V1_NavNode, flowTypes: [UInt64: String], hosts: [UInt64: Flowd_V1_ConnectionInfo]?) -> String {
        let screen = node.screen
        var parts = ["screen \(node.id) \(screen.kind)"]
        if screen.flowID == 0 {
            parts.append("owned by host")
        } else {
            parts.append("flow \(screen.flowID) \(flowTypes[screen.flowID] ?? "?")")
        }
        if hosts == nil {
            // A moment of the history: no host, only the flows' view.
        } else if !screen.delivery.isEmpty, screen.delivery != "dismissing" {
            parts.append(screen.delivery)
        } else if screen.connectionID == 0 {
            parts.append("waiting for a host")
        } else {
            let name = screen.hostName.isEmpty ? (hosts?[screen.connectionID]?.name ?? "") : screen.hostName
            parts.append("host #\(screen.connectionID)\(name.isEmpty ? "" : " " + name) pid \(screen.pid)")
        }
        parts.append(screen.visible ? "visible" : "hidden")
        if screen.dismissing { parts.append("dismissing") }
        if screen.restarts > 0 { parts.append("restarted \(screen.restarts)×") }
        if hosts != nil, screen.lastSerial > screen.ackedSerial, screen.connectionID != 0 {
            parts.append("pending ack (sent \(screen.lastSerial), acked \(screen.ackedSerial))")
        }
        return parts.joined(separator: "  ")
    }
}

extension Flowd_V1_Tree {
    /// Every navigation node, depth first from the window (content before modal).
    public var allNodes: [Flowd_V1_NavNode] {
        var nodes: [Flowd_V1_NavNode] = []
        func walk(_ node: Flowd_V1_NavNode) {
            nodes.append(node)
            node.children.forEach(walk)
            if node.hasPresented { walk(node.presented) }
        }
        if hasWindow { walk(window) }
        return nodes
    }

    /// The screen the user sees: the last visible one, depth first, content before modal (a modal's
    /// screen when one is presented). Nil when no screen is visible.
    public var visibleScreen: Flowd_V1_NavNode? {
        allNodes.last { $0.kind == .screen && $0.screen.visible }
    }

    /// The node with `id`, if the tree has it: in the main window, or in a window a flow opened.
    public func node(_ id: UInt64) -> Flowd_V1_NavNode? {
        if let found = allNodes.first(where: { $0.id == id }) { return found }
        var found: Flowd_V1_NavNode?
        func walk(_ node: Flowd_V1_NavNode) {
            if node.id == id { found = node }
            guard found == nil else { return }
            node.children.forEach(walk)
            if node.hasPresented { walk(node.presented) }
        }
        for other in otherWindows where found == nil { walk(other.window) }
        return found
    }

    /// The nearest tab bar around the screen `id` without crossing a modal, if any.
    public func tabBar(around id: UInt64) -> Flowd_V1_NavNode? {
        var found: Flowd_V1_NavNode?
        func walk(_ node: Flowd_V1_NavNode, bar: Flowd_V1_NavNode?) {
            if node.id == id { found = bar }
            for child in node.children { walk(child, bar: node.kind == .tabBar ? node : bar) }
            if node.hasPresented { walk(node.presented, bar: nil) }
        }
        if hasWindow { walk(window, bar: nil) }
        return found
    }

    /// A screen whose nearest tab bar is `bar` (so that selecting a tab from
    /// it selects a tab of `bar`): the selected tab's first, else any tab's.
    /// Searches each tab down its stacks only, not into modals or nested tab bars.
    public func screen(inTabBar bar: Flowd_V1_NavNode) -> UInt64? {
        func firstScreen(_ node: Flowd_V1_NavNode) -> UInt64? {
            switch node.kind {
            case .screen: return node.id
            case .stack: return node.children.lazy.compactMap(firstScreen).first
            default: return nil
            }
        }
        let order = bar.children.indices.sorted { (UInt32($0) == bar.selectedTab ? 0 : 1, $0) < (UInt32($1) == bar.selectedTab ? 0 : 1, $1) }
        return order.lazy.compactMap { firstScreen(bar.children[$0]) }.first
    }
}
