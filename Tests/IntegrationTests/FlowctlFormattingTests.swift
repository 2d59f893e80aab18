@testable import FlowControl
import FlowWire
import Foundation
import Testing

/// What flowctl prints, byte for byte: pinned from the output of flowctl when it used full Foundation
/// (JSONSerialization, DateFormatter, ISO8601DateFormatter, String(format:)), and compared with
/// Foundation itself where the answer depends on the time zone or on random input.
@Suite struct FlowctlFormattingTests {
    /// 2026-12-06T06:13:25.123456789Z.
    static let nanos: Int64 = 1_796_537_605_123_456_789

    static func event(_ kind: Flowd_V1_EventKind, payload: Flowd_V1_Payload? = nil) -> Flowd_V1_Event {
        var event = Flowd_V1_Event()
        event.seq = 42
        event.timeUnixNanos = nanos
        event.kind = kind
        event.text = "place tutorial screen#3"
        event.flowID = 2
        event.screenID = 3
        if let payload { event.payload = payload }
        return event
    }

    @Test func watchJSONPrintsTheEventWithSortedKeysAndItsJSONPayloadInline() {
        let payload = Flowd_V1_Payload.json(Data(#"""
            {"title":"a/b \"q\" \\ é 😀 \u0001\t\n","Zeta":1,"alpha":-0.0,"x10":1.0,"x9":1e2,"x_1":0.1,
             "big":12345678901234567890,"neg":-9223372036854775808,"huge":123456789012345678901234,
             "tiny":1e-7,"E":1.5E3,"nested":{"b":[],"a":{},"B":[1,2.5,true,false,null]},"":"empty key"}
            """#.utf8))
        var event = Self.event(.place, payload: payload)
        event.connectionID = 7
        event.name = "tutorial"
        event.serial = 5
        var placement = Flowd_V1_Placement()
        var window = Flowd_V1_PathElement()
        window.kind = .window
        window.id = 1
        var tabs = Flowd_V1_PathElement()
        tabs.kind = .tabBar
        tabs.id = 4
        tabs.index = 1
        tabs.tabCount = 3
        var screen = Flowd_V1_PathElement()
        screen.kind = .screen
        screen.id = 3
        screen.presented = true
        placement.path = [window, tabs, screen]
        placement.visible = true
        event.placement = placement
        #expect(EventFormatter.json(event) == #"""
            {"connection":7,"flow":2,"kind":"place","name":"tutorial","payload":{"":"empty key","alpha":-0,"big":12345678901234567890,"E":1500,"huge":123456789012345678901234,"neg":-9223372036854775808,"nested":{"a":{},"b":[],"B":[1,2.5,true,false,null]},"tiny":1e-07,"title":"a/b \"q\" \\ é 😀 \u0001\t\n","x_1":0.1,"x9":100,"x10":1,"Zeta":1},"placement":{"path":[{"id":1,"index":0,"kind":"window"},{"id":4,"index":1,"kind":"tab-bar","tabCount":3},{"id":3,"index":0,"kind":"screen","presented":true}],"topMost":false,"visible":true},"screen":3,"seq":42,"serial":5,"text":"place tutorial screen#3","time":"2026-12-06T06:13:25.123Z","timeUnixNanos":1796537605123456789}
            """#)
    }

    @Test func watchJSONPrintsOtherPayloadsAsTextWithTheirType() {
        var text = Flowd_V1_Payload()
        text.contentType = Flowd_V1_Payload.EventContentType.text
        text.data = Data("students/Bob/age".utf8)
        #expect(EventFormatter.json(Self.event(.linkOpened, payload: text)) == #"""
            {"flow":2,"kind":"link-opened","payload":"students/Bob/age","payloadContentType":"text/plain; charset=utf-8","screen":3,"seq":42,"text":"place tutorial screen#3","time":"2026-12-06T06:13:25.123Z","timeUnixNanos":1796537605123456789}
            """#)
        // Declared JSON but not JSON (a trailing comma is, as JSONSerialization read it): printed as text.
        #expect(EventFormatter.json(Self.event(.output, payload: .json(Data("{\"a\":01}".utf8)))) == #"""
            {"flow":2,"kind":"output","payload":"{\"a\":01}","payloadContentType":"application/json","screen":3,"seq":42,"text":"place tutorial screen#3","time":"2026-12-06T06:13:25.123Z","timeUnixNanos":1796537605123456789}
            """#)
        #expect(EventFormatter.json(Self.event(.output, payload: .json(Data("[1,]".utf8)))).contains(#""payload":[1],"#))
        // A fragment is a payload too.
        #expect(EventFormatter.json(Self.event(.output, payload: .json(Data("\"hi/there\"".utf8)))).contains(#""payload":"hi/there","#))
        var lagged = Flowd_V1_Lagged()
        lagged.dropped = 120
        lagged.nextSeq = 900
        #expect(EventFormatter.json(lagged) == #"{"dropped":120,"kind":"lagged","nextSeq":900}"#)
    }

    @Test func watchLinesPadTheKindAndAddJSONPayloads() throws {
        let formatter = EventFormatter(color: false)
        let line = formatter.line(Self.event(.output, payload: .json(Data(#"{"didPressButton":{"index":1}}"#.utf8))))
        let clock = try #require(line.split(separator: " ").first)
        #expect(line == "\(clock) #42 output            place tutorial screen#3  {\"didPressButton\":{\"index\":1}}")
        // The payload is left out when the text already says it.
        var event = Self.event(.place)
        event.text = "output {\"a\":1} from screen 3"
        event.payload = .json(Data("{\"a\":1}".utf8))
        #expect(formatter.line(event) == "\(clock) #42 place             output {\"a\":1} from screen 3")
        let long = Self.event(.output, payload: .json(Data(("\"" + String(repeating: "x", count: 400) + "\"").utf8)))
        #expect(formatter.line(long).hasSuffix(String(repeating: "x", count: 299) + "…"))
        #expect(EventFormatter(color: true).line(Self.event(.place)).hasPrefix("\u{1B}[2m\(clock)\u{1B}[0m \u{1B}[2m#42\u{1B}[0m \u{1B}[32mplace            \u{1B}[0m"))
        #expect(formatter.line(Self.event(Flowd_V1_EventKind(rawValue: 999)!)).contains(" kind-999          place"))
    }

    /// The clock column is local time (DateFormatter "HH:mm:ss.SSS"), the JSON time UTC
    /// (ISO8601DateFormatter, fractional seconds): both rounded to the millisecond as Foundation did.
    @Test func timesAreWhatFoundationsFormattersPrinted() {
        let local = DateFormatter()
        local.dateFormat = "HH:mm:ss.SSS"
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var random = SystemRandomNumberGenerator()
        var samples: [Int64] = [0, 1, 999_999, 999_500_000, 999_499_999, 1_500_000, Self.nanos, 1_796_601_599_999_600_000]
        for _ in 0..<2_000 { samples.append(Int64.random(in: 0...4_102_444_800_000_000_000, using: &random)) }
        for nanos in samples {
            let date = Date(timeIntervalSince1970: Double(nanos) / 1e9)
            #expect(EventFormatter.clock(nanos) == local.string(from: date), "\(nanos)")
            #expect(EventFormatter.iso8601(nanos) == iso.string(from: date), "\(nanos)")
        }
    }

    @Test func historyTimesAreUTCWithMilliseconds() {
        #expect(HistoryRenderer.time(Self.nanos) == "06:13:25.123")
        #expect(HistoryRenderer.time(1_000_000) == "00:00:00.001")
        #expect(HistoryRenderer.time(0) == "           -")
        var history = Flowd_V1_History()
        history.app = "tutorial"
        history.appVersion = "1"
        history.count = 1
        var input = Flowd_V1_HistoryInput()
        input.index = 7
        input.timeUnixNanos = Self.nanos
        input.text = "output of screen 3"
        input.change.placed = [4, 5]
        history.inputs = [input]
        #expect(HistoryRenderer.render(history) == """
            flowd app tutorial version 1: 1 input since the app's start (moment 0)
                 7  06:13:25.123  output of screen 3  → placed 4,5

            """)
    }

    @Test func dotQuotesBackslashesQuotesAndNewlines() {
        var tree = Flowd_V1_Tree()
        tree.app = #"a\b"c"#
        #expect(DotRenderer.render(tree).contains(#"  label="flowd app a\\b\"c""#))
        var flow = Flowd_V1_FlowNode()
        flow.id = 1
        flow.type = "Root"
        tree.rootFlow = flow
        #expect(DotRenderer.render(tree).contains(#"  f1 [label="flow 1\nRoot" shape=box"#))
    }

    @Test func eventKindNamesTakeUnderscoresAndUpperCase() {
        #expect(EventKindName.kind(named: "EVENT_KIND_FLOW_STARTED") == .flowStarted)
        #expect(EventKindName.kind(named: "flow_started") == .flowStarted)
        #expect(EventKindName.kind(named: "Place") == .place)
        #expect(EventKindName.kind(named: "flow started") == nil)
    }
}
