import DemoApps
import FlowDaemon
import FlowApp
import FlowDaemonTesting
import FlowJournal
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

/// The user's place survives a new version of the app (docs/restore.md, "A new version of the app"):
/// the journal it cannot replay is moved aside, and the place that journal was at opens again
/// through the new version's flows.
@Suite("The place across versions")
struct PlaceAcrossVersionsTests {
    static func launcher(version: String) throws -> App {
        var app = try EmbeddedDaemonTests.app("launcher").withAllScreens(.attached, kinds: BuiltInApps.kinds)
        app.version = version
        return app
    }

    /// A daemon of `app` on the journal at `path`, with every screen on one host whose commands are acknowledged.
    static func start(_ app: App, path: String) throws -> (EmbeddedDaemon, EmbeddedConnection) {
        let daemon = try EmbeddedDaemon(app: app, statePath: path) { $0.exitWhenAppFinishes = false }
        let (host, answer) = EmbeddedDaemonTests.host(daemon, provides: BuiltInApps.kinds)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        return (daemon, host)
    }

    /// The tree a fresh daemon shows after opening `link`: what "the real stack behind it" means.
    static func shapeAfterOpening(_ link: String) throws -> [String] {
        let (daemon, host, debug) = try PlaceTests.launcher()
        _ = PlaceTests.open(link, daemon, host: host, debug: debug)
        EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
        return RestoreTests.shape(daemon)
    }

    @Test(arguments: [false, true])
    func aNewVersionOpensThePlaceTheOldJournalWasAt(crashed: Bool) throws {
        let directory = makeTemporaryDirectory()
        let path = directory + "/launcher.journal"
        do {
            let (old, host) = try Self.start(try Self.launcher(version: "4"), path: path)
            // By hand: Student editor, Bob, Edit age.
            for button in [4, 1, 0] {
                EmbeddedDaemonTests.press(button, on: try #require(OpenLinkJournalTests.visibleScreen(old)), from: host)
                EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
            }
            #expect(old.daemon.tree().place == "students/Bob/age")
            if crashed {
                old.crash()
            } else {
                // A stop (systemctl restart after an upgrade): its unwinding must not become the place.
                old.shutdown()
                EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
                old.run()
                #expect(old.phase == .stopped)
                // What the process's exit does: the lock goes with the journal's file.
                old.daemon.releaseJournalAfterCrash()
            }
        }  // the old daemon is gone: its journal's lock with it

        let (new, newHost) = try Self.start(try Self.launcher(version: "5"), path: path)
        let tree = new.daemon.tree()
        #expect(tree.place == "students/Bob/age", "the age editor is where the user is")
        #expect(tree.stats.placeCarriedOver == "students/Bob/age (version 4)")
        #expect(RestoreTests.shape(new) == (try Self.shapeAfterOpening("students/Bob/age")), "with the real stack behind it")
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("launcher.journal.") && !$0.hasSuffix(".lock") }
        #expect(kept == ["launcher.journal.previous"], "the old journal is kept in the archive slot: \(kept)")
        // Back walks the real stack to the menu.
        for expected in ["students/Bob", "students", "menu"] {
            RestoreTests.back(try #require(OpenLinkJournalTests.visibleScreen(new)), from: newHost)
            EmbeddedDaemonTests.ackAll(newHost.readBodies(), on: newHost)
            #expect(new.daemon.tree().place == expected)
        }
        // The new journal holds the link it opened: a restart of this version restores as usual.
        new.crash()
        let (again, _) = try Self.start(try Self.launcher(version: "5"), path: path)
        #expect(again.daemon.tree().place == "menu")
        #expect(again.daemon.stats().restoredInputs > 0 && again.daemon.stats().placeCarriedOver.isEmpty)
    }

    @Test func aPlaceTheNewVersionRefusesFallsBackOneSegmentAtATime() throws {
        let path = makeTemporaryDirectory() + "/launcher.journal"
        // A journal of version 3 whose last place names a page the new version does not have.
        do {
            let journal = try Journal(path: path, identity: .init(app: "launcher", appVersion: "3"))
            try journal.append([Journal.Record(kind: 64, body: Array("students/Bob/photo".utf8))])
            try journal.append([Journal.Record(kind: 64, body: Array("students/Bob/nickname".utf8))])
        }
        let (new, _) = try Self.start(try Self.launcher(version: "4"), path: path)
        #expect(new.daemon.tree().place == "students/Bob", "the last place journaled, less the segment the flows refused")
        #expect(new.daemon.stats().placeCarriedOver == "students/Bob (version 3)")
    }

    @Test func aJournalOfThisVersionThatDoesNotReplayOpensItsPlaceToo() throws {
        let directory = makeTemporaryDirectory()
        let path = directory + "/launcher.journal"
        do {
            // An input this flowd does not know, then the place it led to.
            let journal = try Journal(path: path, identity: .init(app: "launcher", appVersion: "4"))
            try journal.append([Journal.Record(kind: 63, body: [1]), Journal.Record(kind: 64, body: Array("directory/events/Party".utf8))])
        }
        let (new, _) = try Self.start(try Self.launcher(version: "4"), path: path)
        #expect(new.daemon.tree().place == "directory/events/Party")
        #expect(new.daemon.stats().placeCarriedOver == "directory/events/Party (version 4)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("launcher.journal.refused-") }
        #expect(kept.count == 1, "the journal that did not replay is kept aside: \(kept)")
    }

    @Test(arguments: [nil, "a//b", "sp ace"])
    func aJournalWithoutAPlaceOrWithOneThatIsNoLinkStartsTheNewVersionAtItsStart(place: String?) throws {
        let path = makeTemporaryDirectory() + "/launcher.journal"
        do {
            let journal = try Journal(path: path, identity: .init(app: "launcher", appVersion: "3"))
            if let place { try journal.append([Journal.Record(kind: 64, body: Array(place.utf8))]) }
        }
        let (new, _) = try Self.start(try Self.launcher(version: "4"), path: path)
        #expect(new.daemon.tree().place == "menu")
        #expect(new.daemon.stats().placeCarriedOver.isEmpty)
    }
}
