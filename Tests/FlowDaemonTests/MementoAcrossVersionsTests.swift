import DemoApps
import FlowApp
import FlowDaemon
import FlowDaemonTesting
import FlowJournal
import FlowKit
import FlowWire
import FlowdTestSupport
import Foundation
import Testing

/// Three versions of one app whose root flow keeps notes in its memento (docs/restore.md, "A new
/// version of the app"): version 1 keeps `[String]`; version 2 keeps `Notes` (layout 2) and migrates
/// version 1's; version 3 keeps layout 3 and reads no older one. Each flow has the same type name in
/// every version (`NotesFlow`), which is what names its memento.
enum NotesV1 {
    final class NotesFlow: Flow, LinkHandling {
        typealias RequiredContext = NavigationStack
        typealias Result = Bool
        var names: [String] = []
        var menu: Screen<MenuScreen>?
        var detail: Screen<SummaryScreen>?

        func start(_ flow: FlowContext<NotesFlow>) {
            let menu = flow.show(MenuScreen.self, state())
            self.menu = menu
            menu.onOutput { [unowned self] output in
                guard case .didPressButton(let index) = output else { return }
                if index == 0 {
                    names.append("note \(names.count + 1)")
                    menu.update(state())
                } else {
                    showDetail(flow)
                }
            }
        }

        func showDetail(_ flow: FlowContext<NotesFlow>) {
            detail = flow.show(SummaryScreen.self, CardState(title: "Detail", body: "", buttons: ["OK"]), .pushed(in: flow.context))
        }

        func state() -> CardState { CardState(title: "Notes", body: names.joined(separator: ", "), buttons: ["Add", "Detail"]) }

        func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<NotesFlow> {
            switch link.first {
            case nil: return .here()
            case "detail": return .here(consuming: 1) { [unowned self] flow in showDetail(flow) }
            default: throw link.unknown()
            }
        }

        func place(toward child: (any Flow)?) -> [String]? { detail == nil ? [] : ["detail"] }
        var memento: [String] { names }
        func restore(_ memento: [String]) {
            names = memento
            menu?.update(state())
        }
    }
}

/// Version 2: the notes with the one pinned; layout 2, migrating layout 1 (the first note pinned).
enum NotesV2 {
    struct Notes: Codable, Equatable {
        var names: [String]
        var pinned: String?
    }

    final class NotesFlow: Flow, LinkHandling {
        typealias RequiredContext = NavigationStack
        typealias Result = Bool
        var notes = Notes(names: [], pinned: nil)
        var menu: Screen<MenuScreen>?
        var detail: Screen<SummaryScreen>?

        static let mementoVersion = 2
        static var mementoMigrations: [MementoMigration<Notes>] {
            [.from(1, [String].self) { names in Notes(names: names, pinned: names.first) }]
        }

        func start(_ flow: FlowContext<NotesFlow>) {
            menu = flow.show(MenuScreen.self, state())
        }

        func state() -> CardState {
            CardState(title: "Notes", body: "pinned \(notes.pinned ?? "none"): " + notes.names.joined(separator: ", "), buttons: ["Add", "Detail"])
        }

        func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<NotesFlow> {
            switch link.first {
            case nil: return .here()
            case "detail":
                return .here(consuming: 1) { [unowned self] flow in
                    detail = flow.show(SummaryScreen.self, CardState(title: "Detail", body: "", buttons: ["OK"]), .pushed(in: flow.context))
                }
            default: throw link.unknown()
            }
        }

        func place(toward child: (any Flow)?) -> [String]? { detail == nil ? [] : ["detail"] }
        var memento: Notes { notes }
        func restore(_ memento: Notes) {
            notes = memento
            menu?.update(state())
        }
    }
}

/// Version 3: layout 3, and no migration from the older layouts.
enum NotesV3 {
    final class NotesFlow: Flow, LinkHandling {
        typealias RequiredContext = NavigationStack
        typealias Result = Bool
        var names: [String] = ["(none)"]
        var menu: Screen<MenuScreen>?
        var detail: Screen<SummaryScreen>?

        static var mementoVersion: Int { 3 }

        func start(_ flow: FlowContext<NotesFlow>) {
            menu = flow.show(MenuScreen.self, CardState(title: "Notes", body: names.joined(separator: ", "), buttons: ["Add", "Detail"]))
        }

        func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<NotesFlow> {
            switch link.first {
            case nil: return .here()
            case "detail":
                return .here(consuming: 1) { [unowned self] flow in
                    detail = flow.show(SummaryScreen.self, CardState(title: "Detail", body: "", buttons: ["OK"]), .pushed(in: flow.context))
                }
            default: throw link.unknown()
            }
        }

        func place(toward child: (any Flow)?) -> [String]? { detail == nil ? [] : ["detail"] }
        var memento: [String] { names }
        func restore(_ memento: [String]) { names = memento }
    }
}

/// Version 4: version 1's notes and detail, but the detail screen's kind `summary` has another
/// contract (a `Summary` state of lines, not a card): the saved state of the old detail is dropped.
enum NotesV4 {
    enum Summary: ScreenModule {
        static let kind = SummaryScreen.kind
        struct State: Codable, Sendable { var title: String; var lines: [String] }
        enum Output: Codable, Sendable { case close }
    }

    final class NotesFlow: Flow, LinkHandling {
        typealias RequiredContext = NavigationStack
        typealias Result = Bool
        var names: [String] = []
        var menu: Screen<MenuScreen>?
        var detail: Screen<Summary>?

        func start(_ flow: FlowContext<NotesFlow>) {
            menu = flow.show(MenuScreen.self, CardState(title: "Notes", body: names.joined(separator: ", "), buttons: ["Add", "Detail"]))
        }

        func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<NotesFlow> {
            switch link.first {
            case nil: return .here()
            case "detail":
                return .here(consuming: 1) { [unowned self] flow in
                    detail = flow.show(Summary.self, Summary.State(title: "Detail", lines: names), .pushed(in: flow.context))
                }
            default: throw link.unknown()
            }
        }

        func place(toward child: (any Flow)?) -> [String]? { detail == nil ? [] : ["detail"] }
        var memento: [String] { names }
        func restore(_ memento: [String]) { names = memento }
    }
}

@Suite("Mementos and saved states across versions of the app")
struct MementoAcrossVersionsTests {
    static let kinds = [MenuScreen.kind, SummaryScreen.kind]

    static func app<F: Flow>(version: String, _ root: @escaping () -> F) -> App where F.RequiredContext == NavigationStack {
        App(name: "notes", version: version, modules: [MenuScreen.self, SummaryScreen.self],
            placer: windowRoot.withNavigationEmbedding(), root: root)
    }

    static func start(_ app: App, path: String, log: LogLines) throws -> (EmbeddedDaemon, EmbeddedConnection, [Flowd_V1_Envelope.OneOf_Body]) {
        let daemon = try EmbeddedDaemon(app: app, statePath: path, logger: log.logger) { $0.exitWhenAppFinishes = false }
        let (host, answer) = EmbeddedDaemonTests.host(daemon, provides: kinds)
        let bodies = answer + host.readBodies()
        EmbeddedDaemonTests.ackAll(bodies, on: host)
        return (daemon, host, bodies)
    }

    /// Stops `daemon` as SIGTERM does (the stop leaves its mementos for a next version) and lets go of its journal.
    static func stop(_ daemon: EmbeddedDaemon, host: EmbeddedConnection) {
        daemon.shutdown()
        EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
        daemon.run()
        daemon.daemon.releaseJournalAfterCrash()
    }

    /// Version 1 with two notes, at `detail`, a line saved for the detail screen; stopped.
    static func walkVersion1(path: String) throws {
        let (old, host, bodies) = try start(app(version: "1") { NotesV1.NotesFlow() }, path: path, log: LogLines())
        let menu = try #require(RestoreTests.places(bodies).first { $0.kind == MenuScreen.kind }).screenID
        for button in [0, 0, 1] {
            EmbeddedDaemonTests.press(button, on: menu, from: host)
            EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
        }
        #expect(old.daemon.tree().place == "detail")
        SavedStateTests.save("half a line", on: try #require(OpenLinkJournalTests.visibleScreen(old)), from: host)
        old.run()
        stop(old, host: host)
    }

    /// The body of the menu screen as `bodies` place it.
    static func menuBody(_ bodies: [Flowd_V1_Envelope.OneOf_Body]) throws -> String {
        let place = try #require(RestoreTests.places(bodies).first { $0.kind == MenuScreen.kind })
        return try CardState(binaryPayload: place.state.data).body
    }

    @Test func aNewVersionMigratesTheMementoAndCarriesTheSavedStateInOneInfoLine() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/notes.journal"
        try Self.walkVersion1(path: path)

        let log = LogLines()
        let (new, _, bodies) = try Self.start(Self.app(version: "2") { NotesV2.NotesFlow() }, path: path, log: log)
        #expect(new.daemon.tree().place == "detail", "the place opens in version 2")
        #expect(try Self.menuBody(bodies) == "pinned note 1: note 1, note 2", "version 1's memento, migrated, is the flow's")
        #expect(SavedStateTests.saved(bodies).values.contains("half a line"), "the detail screen's saved state, its contract unchanged: \(SavedStateTests.saved(bodies))")
        let upgrade = log.lines.filter { $0.contains("upgraded the app") }
        #expect(upgrade.count == 1, "\(log.lines)")
        #expect(upgrade.first?.hasPrefix("<6>") == true, "at info: \(upgrade)")
        #expect(upgrade.first?.contains("from version 1 to 2: carried the place detail, 1 of 1 memento and 1 of 1 saved state;") == true, "\(upgrade)")
        #expect(!log.lines.contains { $0.hasPrefix("<3>") || $0.hasPrefix("<4>") }, "no error, no warning: \(log.lines)")
        let stats = new.daemon.stats()
        #expect(stats.journalArchive == path + ".previous")
        #expect(stats.carriedOver == "detail, 1 of 1 memento, 1 of 1 saved state (version 1)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".refused-") }.isEmpty)

        // The new journal starts from what was carried: a crash of version 2 restores the same.
        new.crash()
        let (again, _, restored) = try Self.start(Self.app(version: "2") { NotesV2.NotesFlow() }, path: path, log: LogLines())
        #expect(again.daemon.tree().place == "detail")
        #expect(try Self.menuBody(restored) == "pinned note 1: note 1, note 2")
        #expect(SavedStateTests.saved(restored).values.contains("half a line"))
        #expect(again.daemon.stats().carriedOver.isEmpty)
    }

    @Test func aMementoNoMigrationReadsIsDroppedForItsFlowAloneAndThePlaceStillOpens() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/notes.journal"
        try Self.walkVersion1(path: path)

        let log = LogLines()
        let (new, _, bodies) = try Self.start(Self.app(version: "3") { NotesV3.NotesFlow() }, path: path, log: log)
        #expect(new.daemon.tree().place == "detail", "the place opens all the same")
        #expect(try Self.menuBody(bodies) == "(none)", "the flow starts without the memento")
        let warnings = log.lines.filter { $0.hasPrefix("<4>") }
        #expect(warnings.count == 1, "\(log.lines)")
        #expect(warnings.first?.contains("the memento of NotesFlow from version 1 was dropped: it has layout version 1; this version's is 3 and its mementoMigrations read none") == true,
                "the warning names the flow and the reason: \(warnings)")
        let upgrade = try #require(log.lines.first { $0.contains("upgraded the app") })
        #expect(upgrade.hasPrefix("<6>") && upgrade.contains("0 of 1 memento") && upgrade.contains("not carried: the memento of NotesFlow ("), "\(upgrade)")
    }

    @Test func aSavedStateWhoseScreensContractChangedIsDroppedAndSaid() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/notes.journal"
        try Self.walkVersion1(path: path)

        let log = LogLines()
        let app = App(name: "notes", version: "4", modules: [MenuScreen.self, NotesV4.Summary.self],
                      placer: windowRoot.withNavigationEmbedding()) { NotesV4.NotesFlow() }
        let (new, _, bodies) = try Self.start(app, path: path, log: log)
        #expect(new.daemon.tree().place == "detail", "the detail screen shows again, its kind the same")
        #expect(RestoreTests.places(bodies).contains { $0.kind == SummaryScreen.kind })
        #expect(!SavedStateTests.saved(bodies).values.contains("half a line"), "its contract changed: \(SavedStateTests.saved(bodies))")
        let upgrade = try #require(log.lines.first { $0.contains("upgraded the app") })
        #expect(upgrade.hasPrefix("<6>") && upgrade.contains("1 of 1 memento and 0 of 1 saved state;"), "\(upgrade)")
        #expect(upgrade.contains("(the contract of kind summary changed)"), "the line says why: \(upgrade)")
        #expect(new.daemon.stats().carriedOver == "detail, 1 of 1 memento, 0 of 1 saved state (version 1)")
        #expect(!log.lines.contains { $0.hasPrefix("<3>") || $0.hasPrefix("<4>") }, "a planned drop is no warning: \(log.lines)")
    }

    @Test func twoUpgradesKeepOneArchiveSlotTheLastVersionsJournal() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/notes.journal"
        try Self.walkVersion1(path: path)
        let (second, host, _) = try Self.start(Self.app(version: "2") { NotesV2.NotesFlow() }, path: path, log: LogLines())
        Self.stop(second, host: host)
        let log = LogLines()
        let (third, _, _) = try Self.start(Self.app(version: "3") { NotesV3.NotesFlow() }, path: path, log: log)
        #expect(third.daemon.tree().place == "detail")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("notes.journal.") && $0 != "notes.journal.lock" }
        #expect(files == ["notes.journal.previous"], "one archive slot, no file moved aside: \(files)")
        let (identity, _) = try Journal.lastRecord(ofKind: 64, at: path + ".previous")
        #expect(identity.appVersion == "2", "the slot holds the journal of the version before")
        #expect(log.lines.contains { $0.hasPrefix("<6>") && $0.contains("upgraded the app from version 2 to 3") && $0.contains("kept at \(path).previous until the next upgrade") },
                "\(log.lines)")
    }

    @Test func aDamagedJournalIsStillAnErrorAndKeptAside() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/notes.journal"
        _ = FileManager.default.createFile(atPath: path, contents: Data("not a journal at all".utf8))
        let log = LogLines()
        _ = try Self.start(Self.app(version: "2") { NotesV2.NotesFlow() }, path: path, log: log)
        #expect(log.lines.contains { $0.hasPrefix("<3>") && $0.contains("is not a flowd journal") }, "\(log.lines)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".refused-") }
        #expect(kept.count == 1 && !FileManager.default.fileExists(atPath: path + ".previous"), "\(kept)")
    }
}
