import FlowWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

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
        let kind = Self.column(EventKindName.name(of: event.kind), width: 17)
        let time = Self.clock(event.timeUnixNanos)
        var text = event.text
        // JSON and text payloads follow the text unless it already says them; navigation and
        // termination payloads are binary, and the daemon's text already says them in words.
        if event.hasPayload, !event.payload.data.isEmpty, event.payload.isJSON || event.payload.contentType.hasPrefix("text/") {
            let payload = event.payload.readableText
            if text.firstRange(of: payload) == nil { text += "  " + Self.truncated(payload) }
        }
        return "\(paint(time, "2")) \(paint("#\(event.seq)", "2")) \(paint(kind, Self.colorCode(event.kind))) \(text)"
    }

    /// `text` cut or padded with spaces to `width` characters (a kind's name is ASCII).
    static func column(_ text: String, width: Int) -> String {
        text.count >= width ? String(text.prefix(width)) : text + String(repeating: " ", count: width - text.count)
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
        var object: [String: UntypedJSON] = [
            "seq": .integer(event.seq),
            "time": .string(iso8601(event.timeUnixNanos)),
            "timeUnixNanos": .integer(event.timeUnixNanos),
            "kind": .string(EventKindName.name(of: event.kind)),
            "text": .string(event.text),
        ]
        if event.flowID != 0 { object["flow"] = .integer(event.flowID) }
        if event.screenID != 0 { object["screen"] = .integer(event.screenID) }
        if event.connectionID != 0 { object["connection"] = .integer(event.connectionID) }
        if !event.name.isEmpty { object["name"] = .string(event.name) }
        if event.serial != 0 { object["serial"] = .integer(event.serial) }
        if event.hasPlacement { object["placement"] = .object(placementObject(event.placement)) }
        if event.hasPayload {
            if event.payload.isJSON, let value = try? UntypedJSON(parsing: event.payload.data, fragmentsAllowed: true) {
                object["payload"] = value
            } else {
                object["payload"] = .string(event.payload.readableText)
                object["payloadContentType"] = .string(event.payload.contentType)
            }
        }
        return UntypedJSON.object(object).text
    }

    /// `{"kind":"lagged","dropped":N,"nextSeq":M}`.
    public static func json(_ lagged: Flowd_V1_Lagged) -> String {
        UntypedJSON.object(["kind": .string("lagged"), "dropped": .integer(lagged.dropped), "nextSeq": .integer(lagged.nextSeq)]).text
    }

    static func placementObject(_ placement: Flowd_V1_Placement) -> [String: UntypedJSON] {
        [
            "path": .array(placement.path.map { element -> UntypedJSON in
                var item: [String: UntypedJSON] = [
                    "kind": .string(nodeKindName(element.kind)), "id": .integer(element.id), "index": .integer(element.index),
                ]
                if element.presented { item["presented"] = .bool(true) }
                if element.tabCount > 0 { item["tabCount"] = .integer(element.tabCount) }
                return .object(item)
            }),
            "visible": .bool(placement.visible),
            "topMost": .bool(placement.topMost),
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

    /// Local wall-clock time with milliseconds (`HH:mm:ss.SSS`, as DateFormatter printed it).
    static func clock(_ nanos: Int64) -> String {
        let (seconds, milliseconds) = roundedToMilliseconds(nanos)
        var time = time_t(seconds)
        var parts = tm()
        localtime_r(&time, &parts)
        return "\(digits(parts.tm_hour, 2)):\(digits(parts.tm_min, 2)):\(digits(parts.tm_sec, 2)).\(digits(milliseconds, 3))"
    }

    /// `2026-12-06T06:13:25.123Z` (as ISO8601DateFormatter printed it with fractional seconds).
    static func iso8601(_ nanos: Int64) -> String {
        let (seconds, milliseconds) = roundedToMilliseconds(nanos)
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return "\(digits(parts.tm_year + 1900, 4))-\(digits(parts.tm_mon + 1, 2))-\(digits(parts.tm_mday, 2))T"
            + "\(digits(parts.tm_hour, 2)):\(digits(parts.tm_min, 2)):\(digits(parts.tm_sec, 2)).\(digits(milliseconds, 3))Z"
    }

    /// The time in whole seconds and milliseconds, rounded as Foundation's formatters rounded it: ICU
    /// was given (seconds since 2001 + 978307200) x 1000 + 0.5, in `Double`, and took its floor.
    static func roundedToMilliseconds(_ nanos: Int64) -> (seconds: Int64, milliseconds: Int) {
        let sinceReferenceDate = Double(nanos) / 1e9 - 978_307_200
        let total = Int64(((sinceReferenceDate + 978_307_200) * 1000 + 0.5).rounded(.down))
        let seconds = total >= 0 ? total / 1000 : (total - 999) / 1000
        return (seconds, Int(total - seconds * 1000))
    }

    /// `value` in decimal, zero-padded to `width` digits.
    static func digits(_ value: some BinaryInteger, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
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
