import DemoApps
import FlowDaemon
import FlowDaemonTesting
import FlowWire
import Foundation
import FlowdTestSupport
import Testing

/// `OpenLink` on the embedded daemon (docs/protocol.md §21): typed errors that change nothing.
@Suite("OpenLink")
struct OpenLinkTests {
    static func open(_ link: String, from connection: EmbeddedConnection) -> Flowd_V1_Envelope.OneOf_Body? {
        var request = Flowd_V1_OpenLink()
        request.link = link
        connection.send(.openLink(request))
        return connection.readBodies().last
    }

    @Test(arguments: [
        ("", Flowd_V1_ErrorCode.badLink), ("a//b", .badLink), ("bad%zz", .badLink), ("sp ace", .badLink),
        (String(repeating: "x/", count: 5_000), .badLink), ("no-such-place", .linkRefused),
    ])
    func aBadLinkIsATypedErrorAndChangesNothing(link: String, code: Flowd_V1_ErrorCode) throws {
        let daemon = try EmbeddedDaemonTests.deepStack()
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let before = daemon.daemon.tree()
        let debug = daemon.connect()
        _ = debug.hello(role: .debug)
        guard case .error(let error)? = Self.open(link, from: debug) else {
            Issue.record("expected an Error for \(link.prefix(40))")
            return
        }
        #expect(error.code == code, "\(link.prefix(40)): \(error.message)")
        #expect(!error.fatal, "the connection stays open")
        #expect(!error.message.isEmpty)
        #expect(daemon.daemon.tree().rootFlow == before.rootFlow && daemon.daemon.tree().window == before.window, "nothing changed")
        #expect(host.readBodies().isEmpty, "the host was told nothing")
        // The same connection goes on.
        #expect(Self.open("", from: debug) != nil)
    }

    /// The launcher with every screen on one attached host and a debug client, after `students/Bob`
    /// and a back from Bob's editor whose `Dismiss` is not acknowledged yet.
    static func launcherWithADismissalInFlight() throws -> (EmbeddedDaemon, host: EmbeddedConnection, debug: EmbeddedConnection) {
        let (daemon, host, debug) = try PlaceTests.launcher()
        guard case .linkOpened? = open("students/Bob", from: debug) else { throw ExpectedLinkOpened() }
        EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
        RestoreTests.back(try #require(OpenLinkJournalTests.visibleScreen(daemon)), from: host)
        return (daemon, host, debug)
    }

    struct ExpectedLinkOpened: Error {}

    @Test func aLinkWaitsForTheDismissalInFlightAndIsRefusedOnceShuttingDown() throws {
        let (daemon, host, debug) = try Self.launcherWithADismissalInFlight()
        let before = RestoreTests.shape(daemon)
        #expect(Self.open("students/Ann/age", from: debug) == nil, "no answer yet: the link waits for the dismissal")
        #expect(RestoreTests.shape(daemon) == before, "nothing changed meanwhile")
        EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)  // the Dismiss is acknowledged: the link opens
        guard case .linkOpened(let opened)? = debug.readBodies().last else {
            Issue.record("expected LinkOpened once the dismissal completed")
            return
        }
        #expect(opened.link == "students/Ann/age")
        EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)

        // Another dismissal in flight, a link waiting for it, and the shutdown begins: refused.
        RestoreTests.back(try #require(OpenLinkJournalTests.visibleScreen(daemon)), from: host)
        #expect(Self.open("students/Bob/age", from: debug) == nil)
        daemon.shutdown()  // the host does not acknowledge: the shutdown waits in its unwinding
        guard case .error(let late)? = debug.readBodies().first(where: { if case .error = $0 { true } else { false } }) else {
            Issue.record("expected an Error for the waiting link once shutting down")
            return
        }
        #expect(late.code == .shuttingDown, "\(late.message)")
        guard case .error(let later)? = Self.open("students/Bob/age", from: debug) else {
            Issue.record("expected an Error while shutting down")
            return
        }
        #expect(later.code == .shuttingDown, "\(later.message)")
    }

    /// docs/protocol.md §21: at most 16 links wait for the dismissals in flight; the 17th is refused
    /// with `LINK_REFUSED` and nothing changes; once the dismissal completes the 16 open, in order.
    @Test func theSeventeenthWaitingLinkIsRefused() throws {
        let (daemon, host, debug) = try Self.launcherWithADismissalInFlight()
        let before = RestoreTests.shape(daemon)
        let names = ["Ann", "Bob"]
        for index in 0..<16 {
            #expect(Self.open("students/\(names[index % 2])", from: debug) == nil, "link \(index + 1) waits")
        }
        guard case .error(let refused)? = Self.open("students/Ann/age", from: debug) else {
            Issue.record("expected an Error for the 17th link")
            return
        }
        #expect(refused.code == .linkRefused && !refused.fatal, "\(refused.message)")
        #expect(refused.message.contains("16 links already wait"), "\(refused.message)")
        #expect(RestoreTests.shape(daemon) == before, "nothing changed")
        // The dismissal completes: the 16 open one by one, each answered, in the order they came.
        var opened: [String] = []
        for _ in 0..<40 where opened.count < 16 {
            EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
            for body in debug.readBodies() { if case .linkOpened(let answer) = body { opened.append(answer.link) } }
        }
        #expect(opened == (0..<16).map { "students/\(names[$0 % 2])" })
    }

    @Test func aScreenHostMayOpenLinks() throws {
        let daemon = try EmbeddedDaemonTests.deepStack()
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        guard case .error(let error)? = Self.open("item", from: host) else {
            Issue.record("expected an Error")
            return
        }
        #expect(error.code == .linkRefused && error.message.contains("handles links"), "deep-stack handles no links: \(error.message)")
    }
}

/// A link is an input like any other: journaled, and replayed by a restore (docs/restore.md).
@Suite("OpenLink journaled")
struct OpenLinkJournalTests {
    /// The visible screen of the daemon's tree.
    static func visibleScreen(_ daemon: EmbeddedDaemon) -> UInt64? {
        RestoreTests.screenNodes(daemon.daemon.tree()).last { $0.screen.visible }?.id
    }

    @Test func aDeepLinkSurvivesADaemonRestart() throws {
        let path = makeTemporaryDirectory() + "/launcher.journal"
        let app = try EmbeddedDaemonTests.app("launcher").withAllScreens(.attached, kinds: BuiltInApps.kinds)
        let daemon = try EmbeddedDaemon(app: app, statePath: path) { $0.exitWhenAppFinishes = false }
        let (host, answer) = EmbeddedDaemonTests.host(daemon, provides: BuiltInApps.kinds)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let debug = daemon.connect()
        _ = debug.hello(role: .debug)
        guard case .linkOpened(let opened)? = OpenLinkTests.open("students/Bob/age", from: debug) else {
            Issue.record("expected LinkOpened")
            return
        }
        EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
        let before = RestoreTests.shape(daemon)
        daemon.crash()

        let restored = try EmbeddedDaemon(app: app, statePath: path) { $0.exitWhenAppFinishes = false }
        #expect(restored.daemon.stats().restoredInputs == 1, "the link is the one input")
        #expect(RestoreTests.shape(restored) == before)
        let (again, replaced) = EmbeddedDaemonTests.host(restored, provides: BuiltInApps.kinds)
        EmbeddedDaemonTests.ackAll(replaced, on: again)
        let visible = RestoreTests.places(replaced).filter(\.placement.visible).map(\.screenID)
        #expect(visible == [opened.visibleScreen], "the deep-linked age editor is the visible screen again")
    }
}
