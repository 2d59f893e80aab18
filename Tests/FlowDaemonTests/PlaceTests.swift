import DemoApps
import FlowDaemon
import FlowDaemonTesting
import FlowWire
import Foundation
import FlowdTestSupport
import Testing

/// Where the user is, as a link (`Tree.place`, `LinkOpened.place`; docs/flows.md, Links): the
/// inverse of opening one, said by the demo launcher's flows.
@Suite("Where the user is, as a link")
struct PlaceTests {
    /// Every place of the demo launcher a link names, each as the place says it back.
    static let places = [
        "menu", "tutorial", "tutorial/done", "profile", "profile/kept", "profile/business", "profile/business/owner",
        "students", "students/Bob", "students/Bob/age", "directory/contacts", "directory/contacts/Ann", "directory/events",
        "directory/events/Party", "login", "menu",
    ]

    /// The launcher with every screen on one attached host, and a debug client.
    static func launcher() throws -> (EmbeddedDaemon, host: EmbeddedConnection, debug: EmbeddedConnection) {
        let app = try EmbeddedDaemonTests.app("launcher").withAllScreens(.attached, kinds: BuiltInApps.kinds)
        let daemon = EmbeddedDaemon(app: app) { $0.exitWhenAppFinishes = false }
        let (host, answer) = EmbeddedDaemonTests.host(daemon, provides: BuiltInApps.kinds)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let debug = daemon.connect()
        _ = debug.hello(role: .debug)
        return (daemon, host, debug)
    }

    /// Opens `link` and acknowledges what the host is told until the answer comes (a link waits for
    /// the dismissals in flight).
    static func open(_ link: String, _ daemon: EmbeddedDaemon, host: EmbeddedConnection, debug: EmbeddedConnection) -> Flowd_V1_Envelope.OneOf_Body? {
        var request = Flowd_V1_OpenLink()
        request.link = link
        debug.send(.openLink(request))
        for _ in 0..<20 {
            let answers = debug.readBodies().filter { if case .linkOpened = $0 { true } else if case .error = $0 { true } else { false } }
            EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
            if let answer = answers.last { return answer }
        }
        return nil
    }

    @Test func everyDemoPlaceSaysTheLinkThatOpensItAndOpeningItChangesNothing() throws {
        let (daemon, host, debug) = try Self.launcher()
        #expect(daemon.daemon.tree().place == "menu", "the launcher starts at its menu")
        for link in Self.places {
            guard case .linkOpened(let opened)? = Self.open(link, daemon, host: host, debug: debug) else {
                Issue.record("\(link) did not open")
                continue
            }
            EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
            let tree = daemon.daemon.tree()
            #expect(tree.hasPlace && tree.place == link, "\(link): the tree says \(tree.place)")
            #expect(opened.place == link, "\(link): LinkOpened says \(opened.place)")
            // Opening where the user is arrives where they are: nothing changes.
            let before = RestoreTests.shape(daemon)
            guard case .linkOpened? = Self.open(tree.place, daemon, host: host, debug: debug) else {
                Issue.record("\(tree.place) did not open again")
                continue
            }
            EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
            #expect(RestoreTests.shape(daemon) == before, "\(link): opening the place again changed the tree")
        }
    }

    @Test func walkingThereByHandSaysTheSamePlace() throws {
        let (daemon, host, _) = try Self.launcher()
        // The menu's Student editor, Bob, Edit age; then back twice.
        for button in [4, 1, 0] {
            let visible = try #require(OpenLinkJournalTests.visibleScreen(daemon))
            EmbeddedDaemonTests.press(button, on: visible, from: host)
            EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
        }
        #expect(daemon.daemon.tree().place == "students/Bob/age")
        RestoreTests.back(try #require(OpenLinkJournalTests.visibleScreen(daemon)), from: host)
        EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
        #expect(daemon.daemon.tree().place == "students/Bob")
        RestoreTests.back(try #require(OpenLinkJournalTests.visibleScreen(daemon)), from: host)
        EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
        #expect(daemon.daemon.tree().place == "students")
    }

    @Test func anAppWhoseRootOpensNoLinksHasNoPlace() throws {
        let daemon = try EmbeddedDaemonTests.deepStack()
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        #expect(!daemon.daemon.tree().hasPlace)
    }
}
