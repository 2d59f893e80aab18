// Written as an app's own package would write it: public API only (FlowKit, FlowApp,
// FlowDaemonTesting). AppTesterOutsideTests type-checks this file alone against the built modules,
// without the package's access, to keep it so.
import FlowApp
import FlowDaemonTesting
import FlowKit
import Foundation
import Testing

/// A tally screen: a title and buttons.
enum TallyScreen: ScreenModule {
    static let kind = "tally"
    struct State: Codable, Sendable, Equatable {
        var title: String
        var buttons: [String]
    }
    enum Output: Codable, Sendable { case pressed(Int) }
}

/// Version 1 of the tally app: "+1" counts, "History" pushes the history screen (its place is
/// `history`); the count is the root flow's memento, an `Int` (layout 1).
enum TallyV1 {
    final class TallyFlow: Flow, LinkHandling {
        typealias RequiredContext = NavigationStack
        private var count = 0
        private var home: Screen<TallyScreen>?
        private var history: Screen<TallyScreen>?

        func start(_ flow: FlowContext<TallyFlow>) {
            let home = flow.show(TallyScreen.self, state())
            self.home = home
            home.onOutput { [unowned self] output in
                guard case .pressed(let button) = output else { return }
                if button == 0 {
                    count += 1
                    home.update(state())
                } else {
                    showHistory(flow)
                }
            }
        }

        func state() -> TallyScreen.State { TallyScreen.State(title: "count \(count)", buttons: ["+1", "History"]) }

        func showHistory(_ flow: FlowContext<TallyFlow>) {
            history = flow.show(TallyScreen.self, TallyScreen.State(title: "history", buttons: []), .pushed(in: flow.context))
        }

        func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<TallyFlow> {
            switch link.first {
            case nil: return .here()
            case "history": return .here(consuming: 1) { [unowned self] flow in showHistory(flow) }
            default: throw link.unknown()
            }
        }

        func place(toward child: (any Flow)?) -> [String]? { history?.isPlaced == true ? ["history"] : [] }
        var memento: Int { count }
        func restore(_ memento: Int) {
            count = memento
            home?.update(state())
        }
    }

    static var app: App { App(name: "tally", version: "1", modules: [TallyScreen.self], placer: windowRoot.withNavigationEmbedding()) { TallyFlow() } }
}

/// Version 2: the memento is a `Tally` (layout 2); a layout-1 `Int` is migrated.
enum TallyV2 {
    struct Tally: Codable, Equatable {
        var count: Int
        var unit: String
    }

    final class TallyFlow: Flow, LinkHandling {
        typealias RequiredContext = NavigationStack
        private var tally = Tally(count: 0, unit: "cups")
        private var home: Screen<TallyScreen>?

        static let mementoVersion = 2
        static var mementoMigrations: [MementoMigration<Tally>] {
            [.from(1, Int.self) { count in Tally(count: count, unit: "items") }]
        }

        func start(_ flow: FlowContext<TallyFlow>) {
            home = flow.show(TallyScreen.self, state())
        }

        func state() -> TallyScreen.State { TallyScreen.State(title: "\(tally.count) \(tally.unit)", buttons: ["+1", "History"]) }

        func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<TallyFlow> {
            guard link.first == nil else { throw link.unknown(at: 0, "version 2 has no history") }
            return .here()
        }

        var memento: Tally { tally }
        func restore(_ memento: Tally) {
            tally = memento
            home?.update(state())
        }
    }

    static var app: App { App(name: "tally", version: "2", modules: [TallyScreen.self], placer: windowRoot.withNavigationEmbedding()) { TallyFlow() } }
}

/// Version 3: layout 3, reading no older layout.
enum TallyV3 {
    final class TallyFlow: Flow, LinkHandling {
        typealias RequiredContext = NavigationStack
        static var mementoVersion: Int { 3 }
        private var count = 0

        func start(_ flow: FlowContext<TallyFlow>) {
            flow.show(TallyScreen.self, TallyScreen.State(title: "count \(count)", buttons: []))
        }

        func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<TallyFlow> {
            guard link.first == nil else { throw link.unknown(at: 0, "version 3 has no \(link.first!)") }
            return .here()
        }

        var memento: Int { count }
        func restore(_ memento: Int) { count = memento }
    }

    static var app: App { App(name: "tally", version: "3", modules: [TallyScreen.self], placer: windowRoot.withNavigationEmbedding()) { TallyFlow() } }
}

/// A tally that keeps its count in a field no link nor memento gives back: a checkpoint is refused.
final class ForgetfulTallyFlow: Flow, LinkHandling {
    typealias RequiredContext = NavigationStack
    private var count = 0

    func start(_ flow: FlowContext<ForgetfulTallyFlow>) {
        let home = flow.show(TallyScreen.self, TallyScreen.State(title: "count 0", buttons: ["+1"]))
        home.onOutput { [unowned self] _ in
            count += 1
            home.update(TallyScreen.State(title: "count \(count)", buttons: ["+1"]))
        }
    }

    func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<ForgetfulTallyFlow> { .here() }
}

@Suite("AppTester: checkpoints, restores and upgrades, as an app's package tests them")
struct AppTesterTests {
    // snippet: app-tester
    @Test func aCheckpointOpensAgainWhereTheUserWas() throws {
        let tester = try AppTester(TallyV1.app)
        try tester.send(.pressed(0), from: TallyScreen.self)  // count 1
        try tester.send(.pressed(1), from: TallyScreen.self)  // the history, pushed
        let before = tester.moment
        #expect(before.place == "history")
        #expect(tester.checkpoint() == .taken(place: "history"))
        let start = try tester.reopen()  // kill -9, and a new daemon opens the journal
        #expect(start.restoredInputs == 0, "the journal held the checkpoint alone")
        #expect(tester.moment == before, "the same screens, ids and states: \(tester.moment)")
    }

    @Test func anUpgradeMigratesTheMemento() throws {
        let tester = try AppTester(TallyV1.app)
        try tester.send(.pressed(0), from: TallyScreen.self)
        try tester.send(.pressed(0), from: TallyScreen.self)
        let start = try tester.upgrade(to: TallyV2.app)  // a stop, then version 2 on the journal
        #expect(start.carriedOver == "no place, 1 of 1 memento, 0 of 0 saved states (version 1)")
        #expect(start.problems.isEmpty)
        #expect(try tester.state(of: TallyScreen.self)?.title == "2 items")
    }
    // end: app-tester

    @Test func aRefusedCheckpointSaysWhyAndTheHistoryStays() throws {
        let app = App(name: "forgetful", modules: [TallyScreen.self], placer: windowRoot.withNavigationEmbedding()) { ForgetfulTallyFlow() }
        let tester = try AppTester(app)
        try tester.send(.pressed(0), from: TallyScreen.self)
        guard case .refused(let why) = tester.checkpoint() else {
            Issue.record("a count no link nor memento gives back must refuse the checkpoint")
            return
        }
        #expect(why.contains("state differs"), "\(why)")
        let start = try tester.reopen()
        #expect(start.restoredInputs == 1, "the journal kept its history: the output replays")
        #expect(try tester.state(of: TallyScreen.self)?.title == "count 1")
    }

    @Test func anUpgradeSaysWhatItDidNotCarryAndWhy() throws {
        let tester = try AppTester(TallyV1.app)
        try tester.send(.pressed(0), from: TallyScreen.self)
        try tester.send(.pressed(1), from: TallyScreen.self)
        let start = try tester.upgrade(to: TallyV3.app)
        #expect(start.place == "", "version 3 refuses the link history")
        #expect(start.carriedOver == "no place, 0 of 1 memento, 0 of 0 saved states (version 1)")
        #expect(start.notCarried.contains { $0.hasPrefix("the link history:") }, "\(start.notCarried)")
        #expect(start.notCarried.contains { $0.hasPrefix("the memento of TallyFlow (it has layout version 1; this version's is 3") }, "\(start.notCarried)")
        #expect(start.problems.count == 1 && start.problems[0].hasPrefix("warning: the memento of TallyFlow from version 1 was dropped"), "\(start.problems)")
        #expect(try tester.state(of: TallyScreen.self)?.title == "count 0")
    }

    @Test func anUpgradeFromAJournalFileKeptFromTheOldVersion() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tally-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let recorded = folder + "/tally-1.journal"
        do {
            let old = try AppTester(TallyV1.app)
            for _ in 0..<3 { try old.send(.pressed(0), from: TallyScreen.self) }
            old.stop()
            try FileManager.default.copyItem(atPath: old.journalPath, toPath: recorded)
        }
        let tester = try AppTester(TallyV2.app, journal: recorded)
        #expect(tester.lastStart.carriedOver == "no place, 1 of 1 memento, 0 of 0 saved states (version 1)")
        #expect(try tester.state(of: TallyScreen.self)?.title == "3 items")
        #expect(tester.log.contains { $0.hasPrefix("info: upgraded the app from version 1 to 2") }, "\(tester.log)")
        #expect(FileManager.default.fileExists(atPath: recorded), "the file given is copied, never changed")
        tester.stop()
        #expect(tester.finish().isClean)
    }

    @Test func aSavedStateComesBackAfterACrash() throws {
        let tester = try AppTester(TallyV1.app)
        try tester.save(Data("half a line".utf8), for: TallyScreen.self)
        try tester.reopen()
        #expect(tester.savedState(of: TallyScreen.self) == Data("half a line".utf8))
    }

    @Test func sendingToAScreenNotShownThrows() throws {
        let tester = try AppTester(TallyV3.app)
        enum Other: ScreenModule {
            static let kind = "other"
            struct State: Codable, Sendable {}
            enum Output: Codable, Sendable { case tap }
        }
        #expect(throws: AppTesterError.self) { try tester.send(.tap, from: Other.self) }
    }
}
