import DemoApps
import FlowApp
import FlowDaemon
import FlowDaemonTesting
import FlowKit
import FlowWire
import Foundation
import Testing

/// A running daemon tells what it expects of screen hosts and says when they disagree, instead of
/// leaving a screen waiting silently: `Describe` answers the app's contract; a host offering
/// unknown kinds, a screen without a host after --host-wait and a command a host refused are
/// logged, counted in `Stats` and sent as events. On the embedded daemon, frame by frame.
@Suite struct ContractWatchTests {
    /// A debug client subscribed to every event.
    static func watcher(_ daemon: EmbeddedDaemon) -> EmbeddedConnection {
        let watcher = daemon.connect()
        _ = watcher.hello(role: .debug, name: "watcher")
        watcher.send(.subscribe(Flowd_V1_Subscribe()))
        _ = watcher.readBodies()
        return watcher
    }

    static func events(_ bodies: [Flowd_V1_Envelope.OneOf_Body], _ kind: Flowd_V1_EventKind) -> [Flowd_V1_Event] {
        bodies.compactMap { if case .event(let event) = $0, event.kind == kind { event } else { nil } }
    }

    @Test func describeAnswersTheAppsContract() throws {
        let daemon = try EmbeddedDaemonTests.deepStack()
        let debug = daemon.connect()
        _ = debug.hello(role: .debug, name: "describer")
        debug.send(.describe(Flowd_V1_Describe()))
        guard case .appContract(let reply)? = debug.readBodies().first else { Issue.record("no AppContract"); return }
        #expect(reply.app == "deep-stack")
        #expect(reply.contract.contentType == "application/json")
        let expected = AppContract(try EmbeddedDaemonTests.app("deep-stack")).json
        #expect(try JSONValue(parsing: reply.contract.data) == expected)
        let host = daemon.connect()
        _ = host.hello(role: .screenHost, provides: ["item"])
        host.send(.describe(Flowd_V1_Describe()))
        guard case .error(let refused)? = host.readBodies().first else { Issue.record("a host may not describe"); return }
        #expect(refused.fatal)
        daemon.shutdown()
        debug.hangUp()
        host.hangUp()
    }

    @Test func aHostOfferingKindsTheAppDoesNotUseIsReported() throws {
        let daemon = try EmbeddedDaemonTests.deepStack()
        let watcher = Self.watcher(daemon)
        let (_, answer) = EmbeddedDaemonTests.host(daemon, provides: ["item", "menu", "cart"])
        let unknown = answer.compactMap { if case .error(let error) = $0 { error } else { nil } }
        #expect(unknown.map(\.code) == [.unknownKind])
        #expect(unknown.first?.message.contains("menu, cart") == true)
        let reported = Self.events(watcher.readBodies(), .unknownKinds)
        #expect(reported.map(\.name) == ["menu,cart"])
        #expect(reported.first?.text.contains("does not use: menu, cart") == true)
        #expect(daemon.daemon.stats().unknownKindsOffered == 1)
    }

    @Test func aScreenWithoutAHostIsReportedAfterTheHostWaitAndKeepsWaiting() throws {
        let daemon = try EmbeddedDaemonTests.deepStack { $0.hostWaitMilliseconds = 3_000 }
        let watcher = Self.watcher(daemon)
        daemon.advanceTime(by: 2_999)
        #expect(Self.events(watcher.readBodies(), .noHost).isEmpty)
        #expect(daemon.daemon.stats().screensWithoutHost == 0)
        daemon.advanceTime(by: 1)
        let reported = Self.events(watcher.readBodies(), .noHost)
        #expect(reported.map(\.name) == ["item"])
        #expect(reported.first?.text.contains("no host provides kind item") == true)
        #expect(daemon.daemon.stats().screensWithoutHost == 1)
        daemon.advanceTime(by: 10_000)
        #expect(Self.events(watcher.readBodies(), .noHost).isEmpty, "reported once")
        let (_, answer) = EmbeddedDaemonTests.host(daemon)
        #expect(answer.contains { if case .place = $0 { true } else { false } }, "the screen still waited, and gets its host")
    }

    @Test func aScreenPlacedOnAHostIsNeverReported() throws {
        let daemon = try EmbeddedDaemonTests.deepStack { $0.hostWaitMilliseconds = 1_000 }
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        daemon.advanceTime(by: 5_000)
        #expect(daemon.daemon.stats().screensWithoutHost == 0)
    }

    @Test func aCommandTheHostRefusedIsReportedWithItsKind() throws {
        let daemon = try EmbeddedDaemonTests.deepStack()
        let watcher = Self.watcher(daemon)
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        guard case .place(let place)? = answer.dropFirst().first else { Issue.record("no Place: \(answer)"); return }
        host.send(.error(Flowd_V1_Error(
            code: .badPayload, message: #"kind "item": field "buttons.0": expected String"#, fatal: false,
            screenID: place.screenID, serial: place.serial)))
        let reported = Self.events(watcher.readBodies(), .screenRefused)
        #expect(reported.map(\.name) == ["item"])
        #expect(reported.first?.screenID == place.screenID)
        #expect(reported.first?.text.contains(#"field "buttons.0""#) == true)
        #expect(daemon.daemon.stats().commandsRefused == 1)
    }
}
