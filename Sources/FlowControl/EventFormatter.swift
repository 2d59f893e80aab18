import FlowWire
import Foundation

/// Formats the event stream for `flowctl watch`: one line per event for
/// people (time, seq, kind, what happened; ANSI colours on request), or one
/// JSON object per line for machines.
public struct EventFormatter {
    /// Whether to use ANSI colours.
    public var color: Bool

    /// A formatter; `color` adds ANSI escapes.
    public init(color: Bool) {
        self.color = color
    }

    /// Whether watch output should be coloured: stdout is a terminal and
    /// `NO_COLOR` is unset or empty (https://no-color.org).
    public static func wantsColor(isTerminal: Bool, environment: [String: String]) -> Bool {
        isTerminal && (environment["NO_COLOR"] ?? "").isEmpty
    }

    /// `23:02:11.532 #42 place             place tutorial screen#3 at ...`.
    public func line(_ event: Flowd_V1_Event) -> String {
        let kind = EventKindName.name(of: event.kind).padding(toLength: 17, withPad: " ", startingAt: 0)
        let time = Self.clock(event.timeUnixNanos)
        var text = event.text
        // JSON and text payloads follow the text unless it already says them; navigation and
        // termination payloads are binary, and the daemon's text already says them in words.
        if event.hasPayload, !event.payload.data.isEmpty, event.payload.isJSON || event.payload.contentType.hasPrefix("text/") {
            let payload = event.payload.readableText
            if !text.contains(payload) { text += "  " + Self.truncated(payload) }
        }
        return "\(paint(time, "2")) \(paint("#\(event.seq)", "2")) \(paint(kind, Self.colorCode(event.kind))) \(text)"
    }

    /// At most 300 characters, marked when cut.
    static func truncated(_ text: String) -> String {
        text.count <= 300 ? text : text.prefix(300) + "…"
    }

    /// `lagged: 120 events dropped (the watcher read too slowly); next event #900; run flowctl tree to resynchronise`.
    public func line(_ lagged: Flowd_V1_Lagged) -> String {
        paint("lagged: \(lagged.dropped) events dropped (this watcher read too slowly); events continue from #\(lagged.nextSeq); "
              + "run `flowctl tree` to resynchronise", "1;31")
    }

    /// The event as one JSON object (numbers as numbers, kind by name,
    /// JSON payloads inlined, other payloads as text).
    public static func json(_ event: Flowd_V1_Event) -> String {
        var object: [String: Any] = [
            "seq": event.seq,
            "time": iso8601(event.timeUnixNanos),
            "timeUnixNanos": event.timeUnixNanos,
            "kind": EventKindName.name(of: event.kind),
            "text": event.text,
        ]
        if event.flowID != 0 { object["flow"] = event.flowID }
        if event.screenID != 0 { object["screen"] = event.screenID }
        if event.connectionID != 0 { object["connection"] = event.connectionID }
        if !event.name.isEmpty { object["name"] = event.name }
        if event.serial != 0 { object["serial"] = event.serial }
        if event.hasPlacement { object["placement"] = placementObject(event.placement) }
        if event.hasPayload {
            if event.payload.isJSON, let value = try? JSONSerialization.jsonObject(with: event.payload.data, options: [.fragmentsAllowed]) {
                object["payload"] = value
            } else {
                object["payload"] = event.payload.readableText
                object["payloadContentType"] = event.payload.contentType
            }
        }
        return serialize(object)
    }

    /// `{"kind":"lagged","dropped":N,"nextSeq":M}`.
    public static func json(_ lagged: Flowd_V1_Lagged) -> String {
        serialize(["kind": "lagged", "dropped": lagged.dropped, "nextSeq": lagged.nextSeq])
    }

    static func placementObject(_ placement: Flowd_V1_Placement) -> [String: Any] {
        [
            "path": placement.path.map { element -> [String: Any] in
                var item: [String: Any] = ["kind": nodeKindName(element.kind), "id": element.id, "index": element.index]
                if element.presented { item["presented"] = true }
                if element.tabCount > 0 { item["tabCount"] = element.tabCount }
                return item
            },
            "visible": placement.visible,
            "topMost": placement.topMost,
        ]
    }

    static func nodeKindName(_ kind: Flowd_V1_NodeKind) -> String {
        switch kind {
        case .window: "window"
        case .stack: "stack"
        case .tabBar: "tab-bar"
        case .screen: "screen"
        default: "unknown"
        }
    }

    private static func serialize(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Local wall-clock time with milliseconds.
    static func clock(_ nanos: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(nanos) / 1e9)
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss.SSS"
        return formatter.string(from: date)
    }

    static func iso8601(_ nanos: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(nanos) / 1e9))
    }

    /// ANSI SGR code per kind: connections blue, flows magenta, placements
    /// green, dismissals yellow, acks dim, inputs cyan, errors red.
    static func colorCode(_ kind: Flowd_V1_EventKind) -> String {
        switch kind {
        case .connected, .handshake, .disconnected, .processSpawned, .processExited: "34"
        case .flowStarted, .flowFinished: "1;35"
        case .flowOutput, .flowTerminated: "35"
        case .place, .update, .placementChanged: "32"
        case .dismiss: "33"
        case .ack: "2"
        case .output, .userNavigation, .injected: "36"
        case .error, .shutdown: "1;31"
        default: "0"
        }
    }

    private func paint(_ text: String, _ code: String) -> String {
        color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
