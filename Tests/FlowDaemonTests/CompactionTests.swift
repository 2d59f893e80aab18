import DemoApps
import FlowApp
@testable import FlowDaemon
import FlowDaemonTesting
import FlowJournal
import FlowKit
import FlowWire
import FlowdTestSupport
import Foundation
import Testing

/// A journal bounded by what is open (docs/restore.md, "Long sessions"): the daemon compacts it to a
/// checkpoint of the user's place, checked when it is taken, and a crash afterwards restores the
/// same tree — ids, states and all — from the checkpoint and the inputs after it.
@Suite("Journal compaction")
struct CompactionTests {
    /// The launcher journaling into `path`, compacting after `every` inputs, every screen on one host.
    static func launcher(_ path: String, every: Int) throws -> (EmbeddedDaemon, host: EmbeddedConnection, debug: EmbeddedConnection) {
        let app = try EmbeddedDaemonTests.app("launcher").withAllScreens(.attached, kinds: BuiltInApps.kinds)
        let daemon = try EmbeddedDaemon(app: app, statePath: path) {
            $0.exitWhenAppFinishes = false
            $0.compactAfterInputs = every
        }
        return attach(daemon)
    }

    static func attach(_ daemon: EmbeddedDaemon) -> (EmbeddedDaemon, host: EmbeddedConnection, debug: EmbeddedConnection) {
        let (host, answer) = EmbeddedDaemonTests.host(daemon, provides: BuiltInApps.kinds)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let debug = daemon.connect()
        _ = debug.hello(role: .debug)
        return (daemon, host, debug)
    }

    /// What a restore must give back: the tree's shape, every screen as hosts are told of it, the
    /// place, and everything FlowKit keeps (`RuntimeImage`: ids, states, placements, owners).
    static func everything(_ daemon: EmbeddedDaemon) -> ([String], RuntimeImage?) {
        let tree = daemon.daemon.tree()
        return (RestoreTests.shape(daemon) + RestoreTests.screens(tree) + ["place \(tree.place)"], daemon.daemon.runtimeImage())
    }

    /// Presses `button` on the visible screen and acknowledges what follows.
    static func press(_ button: Int, _ daemon: EmbeddedDaemon, host: EmbeddedConnection) throws {
        let visible = try #require(OpenLinkJournalTests.visibleScreen(daemon))
        EmbeddedDaemonTests.press(button, on: visible, from: host)
        EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
    }

    /// Enters `text` on the visible screen and acknowledges what follows.
    static func enter(_ text: String, _ daemon: EmbeddedDaemon, host: EmbeddedConnection) throws {
        var output = Flowd_V1_Output()
        output.screenID = try #require(OpenLinkJournalTests.visibleScreen(daemon))
        output.payload = .json(Data(#"{"didEnterText":{"text":"\#(text)"}}"#.utf8))
        host.send(.output(output))
        EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
    }

    /// The one place of the walk a checkpoint is refused at, and why. `profile/business` is reached from
    /// the menu in one step, but a checkpoint's rebuild opens its link one segment at a time, and
    /// `profile` is a place of its own (the personal profile): the rebuild starts the personal profile,
    /// then replaces it with the business profile, and is left with a dismissal in flight the live app
    /// never had. The journal keeps its history there instead, and a crash replays it.
    static let refusedPlaces = ["profile/business: the dismissals in flight differ"]

    @Test func theLauncherCompactsAtEveryPlaceAndEachCrashRestoresTheSameTree() throws {
        let path = makeTemporaryDirectory() + "/launcher.journal"
        // Compacting after every input: each place the walk reaches is tried as a checkpoint.
        var (daemon, host, debug) = try Self.launcher(path, every: 1)
        var restores = 0
        var refusals: Set<String> = []
        var refusedSoFar: UInt64 = 0
        /// Notes the place and the reason of a refusal since the last look at this daemon.
        func look(at place: String) {
            let stats = daemon.daemon.stats()
            if stats.journalCheckpointsRefused > refusedSoFar { refusals.insert("\(place): \(stats.lastCheckpointRefusal)") }
            refusedSoFar = stats.journalCheckpointsRefused
        }
        // Each demo app by hand from the menu and back, twice, with a crash after every walk.
        let walks: [[Int]] = [[4, 1, 0], [4], [0], [6], [5], [1], [2]]
        for round in 0..<2 {
            for walk in walks {
                for button in walk {
                    try Self.press(button, daemon, host: host)
                    look(at: daemon.daemon.tree().place)
                }
                let place = daemon.daemon.tree().place
                let held = daemon.daemon.stats().journalInputs
                let refused = Self.refusedPlaces.contains { $0.hasPrefix(place + ": ") }
                #expect(refused ? held > 0 : held == 0,
                        "round \(round), walk \(walk): at \(place) the journal holds \(held) inputs after its checkpoint")
                let before = Self.everything(daemon)
                daemon = try daemon.crashAndRestore()
                (daemon, host, debug) = Self.attach(daemon)
                restores += 1
                refusedSoFar = 0
                look(at: place)
                #expect(Self.everything(daemon) == before, "round \(round), walk \(walk): the restored tree is the one before the crash")
                #expect(daemon.daemon.stats().restoredInputs == held, "round \(round), walk \(walk): the checkpoint and the inputs after it")
                #expect(daemon.daemon.invariantViolations().isEmpty)
                // Back to the menu by its link: compacted there.
                guard case .linkOpened? = PlaceTests.open("menu", daemon, host: host, debug: debug) else {
                    Issue.record("menu did not open")
                    return
                }
                look(at: "menu")
                #expect(daemon.daemon.stats().journalInputs == 0, "round \(round), walk \(walk): compacted at the menu")
            }
        }
        #expect(refusals.sorted() == Self.refusedPlaces, "the places a checkpoint was refused at, and why")
        #expect(restores == 2 * walks.count)
        _ = debug
    }

    @Test func aLongHistoryAtTheMenuStaysSmall() throws {
        let path = makeTemporaryDirectory() + "/launcher.journal"
        let (daemon, host, debug) = try Self.launcher(path, every: 50)
        var largest: UInt64 = 0
        for round in 0..<120 {
            // The student editor: Bob's age to a new value, then back to the menu by the buttons.
            try Self.press(4, daemon, host: host)  // Student editor
            try Self.press(1, daemon, host: host)  // Bob
            try Self.press(0, daemon, host: host)  // Edit age
            try Self.enter("\(20 + round % 50)", daemon, host: host)
            try Self.press(0, daemon, host: host)  // Done
            try Self.press(1, daemon, host: host)  // Back to list
            try Self.press(2, daemon, host: host)  // Back to menu
            largest = max(largest, daemon.daemon.stats().journalBytes)
        }
        let stats = daemon.daemon.stats()
        #expect(stats.journalCheckpoints >= 10, "\(stats.journalCheckpoints) checkpoints, refused \(stats.journalCheckpointsRefused): \(stats.lastCheckpointRefusal)")
        #expect(stats.journalCheckpointsRefused == 0, "\(stats.lastCheckpointRefusal)")
        // 840 inputs at about 40 bytes each would be 24 KB; compacted every 50 it stays a few KB.
        #expect(largest < 8_000, "the journal reached \(largest) bytes")
        #expect(stats.journaledInputs >= 840)
        let before = Self.everything(daemon)
        let restored = try daemon.crashAndRestore()
        #expect(Self.everything(restored) == before)
        #expect(restored.daemon.stats().restoredInputs < 60, "only the inputs after the last checkpoint replay")
        _ = debug
    }
}

/// A tally its screen shows, counted by the screen's buttons: what no link names.
final class TallyFlow: Flow, LinkHandling {
    typealias RequiredContext = NavigationStack
    typealias Result = Int

    var count = 0
    var item: Screen<ItemScreen>?

    func start(_ flow: FlowContext<TallyFlow>) {
        let item = flow.show(ItemScreen.self, state())
        self.item = item
        item.onOutput { [unowned self] _ in
            count += 1
            item.update(state())
        }
    }

    func state() -> CardState { CardState(title: "Tally \(count)", buttons: ["Count"]) }

    func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<TallyFlow> { .here() }
}

/// The same tally, kept in its memento.
final class KeptTallyFlow: Flow, LinkHandling {
    typealias RequiredContext = NavigationStack
    typealias Result = Int

    let tally = TallyFlow()

    func start(_ flow: FlowContext<KeptTallyFlow>) {
        let item = flow.show(ItemScreen.self, tally.state())
        tally.item = item
        item.onOutput { [unowned self] _ in
            tally.count += 1
            item.update(tally.state())
        }
    }

    func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<KeptTallyFlow> { .here() }

    var memento: Int { tally.count }

    func restore(_ memento: Int) {
        tally.count = memento
        tally.item?.update(tally.state())
    }
}

extension CompactionTests {
    static func tally<F: Flow>(_ path: String, every: Int, _ root: @escaping () -> F) throws -> EmbeddedDaemon where F.RequiredContext == NavigationStack {
        let app = App(name: "tally", modules: [ItemScreen.self], placer: windowRoot.withNavigationEmbedding(), root: root)
        return try EmbeddedDaemon(app: app, statePath: path) {
            $0.exitWhenAppFinishes = false
            $0.compactAfterInputs = every
        }
    }

    /// A tally daemon compacting after 2 inputs, its host, and `count` presses on the tally.
    static func tallied<F: Flow>(_ count: Int, _ path: String, _ root: @escaping () -> F) throws -> EmbeddedDaemon
    where F.RequiredContext == NavigationStack {
        let daemon = try tally(path, every: 2, root)
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        for _ in 0..<count { try press(0, daemon, host: host) }
        return daemon
    }

    @Test func aStateNoLinkNorMementoGivesBackIsRefusedAndTheHistoryKept() throws {
        let path = makeTemporaryDirectory() + "/tally.journal"
        let daemon = try Self.tallied(6, path) { TallyFlow() }
        let stats = daemon.daemon.stats()
        #expect(stats.journalCheckpoints == 0)
        #expect(stats.journalCheckpointsRefused >= 1)
        #expect(stats.lastCheckpointRefusal.contains("state differs"), "\(stats.lastCheckpointRefusal)")
        let before = daemon.daemon.runtimeImage()
        let restored = try daemon.crashAndRestore()
        #expect(restored.daemon.runtimeImage() == before, "the whole history replays")
        #expect(restored.daemon.stats().restoredInputs == 6)
    }

    @Test func theSameStateInAMementoIsCompactedAndComesBack() throws {
        let path = makeTemporaryDirectory() + "/tally.journal"
        let daemon = try Self.tallied(7, path) { KeptTallyFlow() }
        let stats = daemon.daemon.stats()
        #expect(stats.journalCheckpoints >= 3 && stats.journalCheckpointsRefused == 0, "\(stats.lastCheckpointRefusal)")
        let before = daemon.daemon.runtimeImage()
        let restored = try daemon.crashAndRestore()
        #expect(restored.daemon.runtimeImage() == before)
        #expect(restored.daemon.stats().restoredInputs <= 1, "the checkpoint and what followed it")
        let (host2, replaced) = EmbeddedDaemonTests.host(restored)
        #expect(RestoreTests.places(replaced).count == 1)
        _ = host2
    }

    @Test func aFlowThatDoesNotHandleLinksIsNeverCompacted() throws {
        let path = RestoreTests.journalPath()
        let daemon = try RestoreTests.deepStack(path) { $0.compactAfterInputs = 1 }
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        for _ in 0..<3 { try Self.press(0, daemon, host: host) }
        let stats = daemon.daemon.stats()
        #expect(stats.journalCheckpoints == 0)
        #expect(stats.lastCheckpointRefusal.contains("DeepStackFlow"), "\(stats.lastCheckpointRefusal)")
    }
}

extension CompactionTests {
    @Test(arguments: [("another layout", [UInt8]([9])), ("cut short", [1, 4, 0x6D]), ("a place that does not open", [1, 5] + Array("nowhr".utf8) + [1, 2, 1, 0, 0, 0, 0, 0])])
    func aCheckpointThatDoesNotRestoreIsMovedAsideAndTheAppStartsFresh(_ damage: String, _ body: [UInt8]) throws {
        let directory = makeTemporaryDirectory()
        let path = directory + "/launcher.journal"
        let app = try EmbeddedDaemonTests.app("launcher")
        do {
            let journal = try Journal(path: path, identity: .init(app: app.name, appVersion: app.version))
            try journal.rewrite([Journal.Record(kind: 65, body: body)])
        }
        let (daemon, _, _) = try Self.launcher(path, every: 0)
        #expect(daemon.daemon.stats().restoredInputs == 0, "\(damage)")
        #expect(daemon.daemon.tree().place == "menu", "\(damage): the app starts at its start")
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("launcher.journal.refused-") }
        #expect(kept.count == 1, "\(damage): the journal is moved aside, not deleted")
    }

    /// The checkpoint record the daemon wrote decodes to what it encodes, holds the tally's memento,
    /// and restores on its own (a journal of that record alone) to the runtime image the daemon had
    /// when it took it; the inputs after it follow it in the journal.
    @Test func aCheckpointRecordReadsBackAsItWasWritten() throws {
        let path = makeTemporaryDirectory() + "/tally.journal"
        let daemon = try Self.tally(path, every: 2) { KeptTallyFlow() }
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        for _ in 0..<2 { try Self.press(0, daemon, host: host) }
        let stats = daemon.daemon.stats()
        try #require(stats.journalCheckpoints == 1, "the second input is compacted: \(stats.journalCheckpoints) taken, \(stats.lastCheckpointRefusal)")
        let whenTaken = daemon.daemon.runtimeImage()
        try Self.press(0, daemon, host: host)
        let after = daemon.daemon.runtimeImage()
        #expect(after != whenTaken, "the third press changed the tally")
        daemon.crash()

        let identity = Journal.Identity(app: "tally", appVersion: "1")
        let records = try { try Journal(path: path, identity: identity).records() }()
        let first = try #require(records.first)
        #expect(first.kind == Checkpoint.kind, "a compacted journal starts with its checkpoint")
        #expect(records.dropFirst().allSatisfy { $0.kind < 64 || $0.kind == 67 },
                "then inputs (with the time they were received, kind 67) only: the tally has no link to name")
        #expect(records.dropFirst().first?.kind == 67, "the first input after the checkpoint has its time again")
        #expect(records.dropFirst().filter { $0.kind < 64 }.count == 1, "the one input after it")

        let checkpoint = try Checkpoint(decoding: first.body)
        #expect(checkpoint.encoded == first.body, "it encodes back to the bytes written")
        #expect(checkpoint.place == "", "the tally opens no link: its place is the app's start")
        #expect(checkpoint.mementos.values.map { String(decoding: $0, as: UTF8.self) } == ["2"], "the tally's memento: 2 presses")

        // That record alone, as a journal: the restore is the daemon when it took it.
        let alonePath = makeTemporaryDirectory() + "/tally.journal"
        do { try Journal(path: alonePath, identity: identity).rewrite([first]) }
        let alone = try Self.tally(alonePath, every: 0) { KeptTallyFlow() }
        #expect(alone.daemon.stats().restoredInputs == 0)
        #expect(alone.daemon.runtimeImage() == whenTaken, "the checkpoint alone restores the image the daemon had when it took it")
        // The whole journal: the checkpoint and the input after it.
        let whole = try Self.tally(path, every: 0) { KeptTallyFlow() }
        #expect(whole.daemon.stats().restoredInputs == 1)
        #expect(whole.daemon.runtimeImage() == after)
    }
}

extension CompactionTests {
    @Test func aPlaceTwoStudentsShareIsNotCheckpointed() throws {
        let path = makeTemporaryDirectory() + "/launcher.journal"
        let (daemon, host, _) = try Self.launcher(path, every: 1)
        try Self.press(4, daemon, host: host)  // Student editor
        try Self.press(0, daemon, host: host)  // Ann
        try Self.enter("Bob", daemon, host: host)  // Ann is renamed Bob
        try Self.press(1, daemon, host: host)  // Back to list: two students named Bob
        try Self.press(1, daemon, host: host)  // the second Bob: the editor's handlers keep index 1
        #expect(daemon.daemon.tree().place == "students/Bob")
        let stats = daemon.daemon.stats()
        #expect(stats.lastCheckpointRefusal.contains("2 students are named Bob"), "\(stats.lastCheckpointRefusal)")
        // The whole history replays instead: the restore edits the same student.
        let before = daemon.daemon.runtimeImage()
        let restored = try daemon.crashAndRestore()
        #expect(restored.daemon.runtimeImage() == before)
    }
}

extension CompactionTests {
    @Test func aRenamedStudentsPlaceIsCheckpointedThroughTheMementos() throws {
        let path = makeTemporaryDirectory() + "/launcher.journal"
        let (daemon, host, _) = try Self.launcher(path, every: 1)
        try Self.press(4, daemon, host: host)  // Student editor
        try Self.press(1, daemon, host: host)  // Bob
        try Self.enter("Rob", daemon, host: host)
        #expect(daemon.daemon.tree().place == "students/Rob")
        let stats = daemon.daemon.stats()
        // The list takes its memento (Rob) before it routes "Rob": the place opens from a fresh start.
        #expect(stats.journalInputs == 0 && stats.journalCheckpointsRefused == 0, "\(stats.journalInputs) inputs, \(stats.journalCheckpoints) taken, \(stats.journalCheckpointsRefused) refused: \(stats.lastCheckpointRefusal)")
        let before = daemon.daemon.runtimeImage()
        let restored = try daemon.crashAndRestore()
        #expect(restored.daemon.runtimeImage() == before)
    }
}

