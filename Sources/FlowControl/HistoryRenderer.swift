import FlowWire
#if canImport(Glibc)
import Glibc
#endif

/// Renders the history of inputs and its moments as text for people (`flowctl history`, `flowctl at`).
public enum HistoryRenderer {
    /// One line per input: its number, its time, what it was and what it changed.
    public static func render(_ history: Flowd_V1_History) -> String {
        var out = ["flowd app \(history.app) version \(history.appVersion): \(history.count) input\(history.count == 1 ? "" : "s")"
            + (history.fromCheckpoint ? " since the journal's checkpoint (moment 0)" : " since the app's start (moment 0)")]
        if !history.stopped.isEmpty { out.append("the history stops early: \(history.stopped)") }
        for input in history.inputs {
            var line = String(input.index).leftPadded(to: 6) + "  " + time(input.timeUnixNanos) + "  " + input.text
            let change = summary(input.change)
            if !change.isEmpty { line += "  → " + change }
            out.append(line)
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// The moment's heading, its flows and navigation, and each screen's state.
    public static func render(_ moment: Flowd_V1_Moment) -> String {
        var out: [String] = []
        if moment.hasInput {
            out.append("moment \(moment.index) of \(moment.count), after input \(moment.index) at \(time(moment.input.timeUnixNanos)): \(moment.input.text)")
            let change = summary(moment.input.change)
            if !change.isEmpty { out.append("changed: " + change) }
        } else {
            out.append("moment 0 of \(moment.count): the start")
        }
        if moment.tree.hasPlace { out.append("place: \(moment.tree.place)") }
        out.append("")
        var text = out.joined(separator: "\n") + "\n" + TreeRenderer.renderShape(moment.tree)
        text += "\nstates\n"
        if moment.screens.isEmpty { text += "  (none)\n" }
        for screen in moment.screens {
            let state = screen.state.isJSON ? String(decoding: screen.state.data, as: UTF8.self) : "(\(screen.state.data.count) bytes of \(screen.state.contentType))"
            text += "  screen \(screen.id) \(screen.kind)  \(state)\n"
        }
        return text
    }

    /// `placed 4; updated 3; dismissed 2; flows started 5; flows ended 2`, or "" when nothing changed.
    public static func summary(_ change: Flowd_V1_MomentChange) -> String {
        var parts: [String] = []
        func add(_ word: String, _ ids: [UInt64]) {
            if !ids.isEmpty { parts.append("\(word) " + ids.map(String.init).joined(separator: ",")) }
        }
        add("placed", change.placed)
        add("updated", change.updated)
        add("moved", change.moved)
        add("dismissed", change.dismissed)
        add("flows started", change.flowsStarted)
        add("flows ended", change.flowsEnded)
        return parts.joined(separator: "; ")
    }

    /// `18:31:02.123` in UTC, or `-` when not known.
    static func time(_ nanos: Int64) -> String {
        guard nanos > 0 else { return "-".leftPadded(to: 12) }
        let milliseconds = nanos / 1_000_000
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return "\(EventFormatter.digits(parts.tm_hour, 2)):\(EventFormatter.digits(parts.tm_min, 2)):\(EventFormatter.digits(parts.tm_sec, 2))."
            + EventFormatter.digits(milliseconds % 1000, 3)
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
