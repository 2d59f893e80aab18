import DemoApps
@testable import FlowDaemon
import FlowDaemonTesting
import FlowKit
import FlowWire
import Foundation
import Testing

/// `flowd replay` and the daemon apply one payload rule (`FlowRuntime.acceptedOutput`): the same
/// session, recorded from an embedded daemon as `flowctl record` records it, replays to the same
/// placements — outputs in the kind's protobuf form, as JSON, injected, refused ones among them.
@Suite struct ReplayParityTests {
    @Test func aRecordedSessionReplaysToTheSamePlacements() throws {
        let app = try EmbeddedDaemonTests.app("deep-stack")
        let daemon = EmbeddedDaemon(app: app)
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let root = try #require(PayloadRulesTests.places(answer).first)

        // The recorder, as `flowctl record` starts: the tree, then every event with payloads.
        let recorder = daemon.connect()
        _ = recorder.hello(role: .debug, name: "recorder")
        recorder.send(.getTree(Flowd_V1_GetTree()))
        let tree = try #require(recorder.readBodies().compactMap { if case .tree(let tree) = $0 { tree } else { nil } }.first)
        var subscribe = Flowd_V1_Subscribe()
        subscribe.payloads = true
        recorder.send(.subscribe(subscribe))
        _ = recorder.readBodies()

        /// Acknowledges what the host got; returns the screen it was last told to place (the top one).
        var top = root.screenID
        func settle() {
            let bodies = host.readBodies()
            EmbeddedDaemonTests.ackAll(bodies, on: host)
            if let placed = PayloadRulesTests.places(bodies).last { top = placed.screenID }
        }
        PayloadRulesTests.press(0, on: top, from: host)  // protobuf: pushes item 2
        settle()
        PayloadRulesTests.press(0, on: top, from: host, as: .json(Data(#"{"didPressButton":{"index":0}}"#.utf8)))  // JSON: item 3
        settle()
        PayloadRulesTests.press(0, on: top, from: host, as: .json(Data(#"{"notAnOutput":true}"#.utf8)))  // refused
        PayloadRulesTests.press(0, on: top, from: host, as: Flowd_V1_Payload(contentType: "text/plain", data: Data("0".utf8)))  // refused
        settle()
        var inject = Flowd_V1_InjectOutput()
        inject.screenID = top
        inject.payload = .json(Data(#"{"didPressButton":{"index":0}}"#.utf8))  // injected: item 4
        recorder.send(.injectOutput(inject))
        settle()
        PayloadRulesTests.press(2, on: top, from: host)  // finish: unwinds the stack
        settle()

        let events = recorder.readBodies().compactMap { if case .event(let event) = $0 { event } else { nil } }
        #expect(events.contains { $0.kind == .injected } && events.filter { $0.kind == .output }.count == 3, "\(events.map(\.kind))")
        #expect(events.filter { $0.kind == .place }.count == 3, "items 2, 3 and 4")
        let result = try Replay.run(Recording(tree: tree, events: events), app: app)
        #expect(result.isSame, "\(result.difference ?? "")")
        #expect(result.inputs == 4, "three outputs and the injection; the refused ones were never events")
        #expect(result.compared >= 8, "the pushes, their placement changes and the dismissals: \(result.compared)")
    }
}
