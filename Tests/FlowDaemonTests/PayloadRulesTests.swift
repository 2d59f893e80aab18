import DemoApps
import FlowApp
import FlowDaemonTesting
import FlowKit
import FlowWire
import Foundation
import Testing

/// What crosses the socket for a kind whose payloads are protobuf messages (the demo's cards): the
/// content types of `Place`, `Update` and `Output`, JSON for people (injections, events), the
/// refusal of a content type that is neither, and no `Update` for a state that did not change. On
/// the embedded daemon (deep-stack: item cards; button 0 pushes one).
@Suite struct PayloadRulesTests {
    static let stateType = "application/protobuf; proto=flowd.demo.v1.CardState"
    static let outputType = "application/protobuf; proto=flowd.demo.v1.CardOutput"

    static func press(_ button: Int, on screen: UInt64, from connection: EmbeddedConnection, as payload: Flowd_V1_Payload? = nil) {
        var output = Flowd_V1_Output()
        output.screenID = screen
        if let payload {
            output.payload = payload
        } else {
            output.payload.contentType = outputType
            output.payload.data = try! CardOutput.didPressButton(index: button).binaryPayload()
        }
        connection.send(.output(output))
    }

    static func places(_ bodies: [Flowd_V1_Envelope.OneOf_Body]) -> [Flowd_V1_Place] {
        bodies.compactMap { if case .place(let place) = $0 { place } else { nil } }
    }

    @Test func statesGoInTheKindsContentTypeAndOutputsComeInItOrAsJSON() throws {
        let daemon = try EmbeddedDaemonTests.deepStack()
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        let root = try #require(Self.places(answer).first)
        #expect(root.state.contentType == Self.stateType)
        #expect(try CardState(binaryPayload: root.state.data).title == "Item 1")
        EmbeddedDaemonTests.ackAll(answer, on: host)

        Self.press(0, on: root.screenID, from: host)
        let pushed = host.readBodies()
        let second = try #require(Self.places(pushed).first, "protobuf press pushes: \(pushed)")
        #expect(second.state.contentType == Self.stateType)
        EmbeddedDaemonTests.ackAll(pushed, on: host)

        // The same press as JSON (protobuf's JSON mapping) is taken too.
        Self.press(0, on: second.screenID, from: host, as: .json(Data(#"{"didPressButton":{"index":0}}"#.utf8)))
        let third = host.readBodies()
        #expect(Self.places(third).count == 1, "JSON press pushes: \(third)")
    }

    /// docs/protocol.md §14, `flowd describe` and the daemon agree, for protobuf and JSON kinds alike:
    /// keys a receiver does not know are ignored, in a case's object and beside it; an enum's object
    /// names exactly one of its cases.
    @Test func unknownKeysAreIgnoredAndAValueNamesExactlyOneCaseForEveryKind() throws {
        func error(_ bodies: [Flowd_V1_Envelope.OneOf_Body]) -> Flowd_V1_Error? {
            bodies.compactMap { if case .error(let error) = $0 { error } else { nil } }.first
        }
        // A protobuf kind (deep-stack's item cards).
        let daemon = try EmbeddedDaemonTests.deepStack()
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        let root = try #require(Self.places(answer).first)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        Self.press(0, on: root.screenID, from: host, as: .json(Data(#"{"didPressButton":{"index":0,"extra":true}}"#.utf8)))
        let pushed = host.readBodies()
        #expect(Self.places(pushed).count == 1 && error(pushed) == nil, "an extra key in the case is ignored: \(pushed)")
        EmbeddedDaemonTests.ackAll(pushed, on: host)
        let top = try #require(Self.places(pushed).first)

        let both = #"{"didPressButton":{"index":0},"didEnterText":{"text":"x"}}"#
        Self.press(0, on: top.screenID, from: host, as: .json(Data(both.utf8)))
        let two = try #require(error(host.readBodies()), "two cases are refused")
        #expect(two.code == .badPayload, "\(two.message)")
        Self.press(0, on: top.screenID, from: host, as: .json(Data(#"{"didPressButton":{"index":0},"bogus":{}}"#.utf8)))
        let beside = host.readBodies()
        #expect(Self.places(beside).count == 1 && error(beside) == nil, "a key beside the case is ignored: \(beside)")

        // A JSON kind (Codable State and Output), the same rules.
        let app = App(name: "votes", modules: [VoteScreen.self], placer: windowRoot.withNavigationEmbedding()) { VoteFlow() }
        let votes = EmbeddedDaemon(app: app)
        let (voter, hello) = EmbeddedDaemonTests.host(votes, provides: [VoteScreen.kind])
        let screen = try #require(Self.places(hello).first).screenID
        EmbeddedDaemonTests.ackAll(hello, on: voter)
        func vote(_ json: String) -> [Flowd_V1_Envelope.OneOf_Body] {
            Self.press(0, on: screen, from: voter, as: .json(Data(json.utf8)))
            let bodies = voter.readBodies()
            EmbeddedDaemonTests.ackAll(bodies, on: voter)
            return bodies
        }
        #expect(error(vote(#"{"yes":{},"no":{}}"#))?.code == .badPayload, "two cases are refused")
        #expect(error(vote(#"{"yes":{"extra":1}}"#)) == nil, "an extra key in the case is ignored")
        #expect(error(vote(#"{"no":{},"bogus":{}}"#)) == nil, "a key beside the case is ignored")
        #expect(error(vote(#"{}"#))?.code == .badPayload, "no case is refused")
        let tally = try #require(RestoreTests.screenNodes(votes.daemon.tree()).first)
        #expect(tally.screen.kind == VoteScreen.kind)
        #expect(VoteFlow.last == ["yes", "no"], "the flow heard exactly the two accepted votes: \(VoteFlow.last)")
    }

    @Test func aContentTypeThatIsNeitherIsRefusedNamingBoth() throws {
        let daemon = try EmbeddedDaemonTests.deepStack()
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        let root = try #require(Self.places(answer).first)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        var wrong = Flowd_V1_Payload()
        wrong.contentType = "application/protobuf; proto=flowd.demo.v1.DidPressButton"
        wrong.data = Data([0x08, 0x00])
        Self.press(0, on: root.screenID, from: host, as: wrong)
        let reply = host.readBodies()
        guard case .error(let error)? = reply.first else {
            Issue.record("expected an Error, got \(reply)")
            return
        }
        #expect(error.code == .badPayload && !error.fatal && error.screenID == root.screenID)
        #expect(error.message.contains("flowd.demo.v1.DidPressButton") && error.message.contains(Self.outputType), "\(error.message)")
        #expect(daemon.daemon.connectionIDs.count == 1, "the host stays connected")

        // The right type with bytes that are no CardOutput (no event set) is refused too, with why.
        var empty = Flowd_V1_Payload()
        empty.contentType = Self.outputType
        Self.press(0, on: root.screenID, from: host, as: empty)
        guard case .error(let second)? = host.readBodies().first else {
            Issue.record("expected an Error for an empty CardOutput")
            return
        }
        #expect(second.code == .badPayload && second.message.contains("must set one of its events"), "\(second.message)")

        // JSON that is no CardOutput in protobuf's mapping is refused, and the screen still works.
        Self.press(0, on: root.screenID, from: host, as: .json(Data(#"{"nonsense":{}}"#.utf8)))
        guard case .error(let third)? = host.readBodies().first else {
            Issue.record("expected an Error for JSON that is no CardOutput")
            return
        }
        #expect(third.code == .badPayload && !third.fatal && third.message.contains("not the JSON of its module's Output"), "\(third.message)")
        Self.press(0, on: root.screenID, from: host)
        #expect(Self.places(host.readBodies()).count == 1, "a good press after the refusals still pushes")
    }

    @Test func debugClientsInjectAndSeeJSON() throws {
        let daemon = try EmbeddedDaemonTests.deepStack()
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        let root = try #require(Self.places(answer).first)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let watcher = daemon.connect()
        _ = watcher.hello(role: .debug, name: "watcher")
        var subscribe = Flowd_V1_Subscribe()
        subscribe.payloads = true
        watcher.send(.subscribe(subscribe))
        _ = watcher.readBodies()

        var inject = Flowd_V1_InjectOutput()
        inject.screenID = root.screenID
        inject.payload = .json(Data(#"{"didPressButton":{"index":0}}"#.utf8))
        watcher.send(.injectOutput(inject))
        let pushed = host.readBodies()
        let place = try #require(Self.places(pushed).first, "the injected JSON press pushes: \(pushed)")
        #expect(place.state.contentType == Self.stateType)
        EmbeddedDaemonTests.ackAll(pushed, on: host)

        Self.press(0, on: place.screenID, from: host)
        _ = host.readBodies()
        let events = watcher.readBodies().compactMap { if case .event(let event) = $0 { event } else { nil } }
        let injected = try #require(events.first { $0.kind == .injected })
        #expect(injected.payload.contentType == "application/json")
        #expect(String(decoding: injected.payload.data, as: UTF8.self) == #"{"didPressButton":{"index":0}}"#)
        let output = try #require(events.first { $0.kind == .output })
        #expect(output.payload.contentType == "application/json", "a protobuf output is shown as JSON")
        #expect(String(decoding: output.payload.data, as: UTF8.self) == #"{"didPressButton":{"index":0}}"#)
        let placed = try #require(events.first { $0.kind == .place })
        #expect(placed.payload.contentType == "application/json")
        #expect(String(decoding: placed.payload.data, as: UTF8.self).contains(#""title":"Item 2""#), "\(String(decoding: placed.payload.data, as: UTF8.self))")
    }

    @Test func anUpdateThatChangesNothingNeverReachesTheHostUnlessForced() throws {
        // mirror: button 0 counts (both screens updated), 2 updates the item screen with its own
        // state, 3 does the same forced.
        let daemon = EmbeddedDaemon(app: try EmbeddedDaemonTests.app("mirror"))
        let (host, answer) = EmbeddedDaemonTests.host(daemon, provides: ["item", "tutorial"])
        let item = try #require(Self.places(answer).first { $0.kind == "item" })
        EmbeddedDaemonTests.ackAll(answer, on: host)
        func updates(after button: Int) -> [Flowd_V1_Update] {
            Self.press(button, on: item.screenID, from: host)
            let bodies = host.readBodies()
            EmbeddedDaemonTests.ackAll(bodies, on: host)
            return bodies.compactMap { if case .update(let update) = $0 { update } else { nil } }
        }
        #expect(updates(after: 0).count == 2, "a new count updates both screens")
        #expect(updates(after: 2).isEmpty, "the same state again sends nothing")
        #expect(updates(after: 2).isEmpty)
        #expect(daemon.daemon.stats().unchangedUpdates == 2)
        let forced = updates(after: 3)
        #expect(forced.count == 1 && forced[0].screenID == item.screenID && forced[0].serial == 3, "forced: sent, with the next serial")
        #expect(updates(after: 0).map(\.serial) == [4, 3], "serials go on from the forced one; the mirror's own")
        #expect(daemon.daemon.stats().unchangedUpdates == 2)
    }
}

/// A JSON kind with two cases, for the payload rules.
enum VoteScreen: ScreenModule {
    static let kind = "vote"
    struct State: Codable { var tally: Int }
    enum Output: Codable { case yes, no }
}

/// Counts the votes its screen sends.
final class VoteFlow: Flow {
    typealias RequiredContext = NavigationStack
    nonisolated(unsafe) static var last: [String] = []

    func start(_ flow: FlowContext<VoteFlow>) {
        Self.last = []
        let screen = flow.show(VoteScreen.self, .init(tally: 0))
        screen.onOutput { output in
            Self.last.append(output == .yes ? "yes" : "no")
            screen.update(.init(tally: Self.last.count))
        }
    }
}
