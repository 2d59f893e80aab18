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

/// A recording started in the middle of a session carries what rebuilds the state it starts from
/// (`Tree.start_state`), and `flowd replay` rebuilds it first: the launcher driven a few steps,
/// recorded while more are taken (a screen placed and dismissed among them), replays to the same
/// placements — with a journal, a journal compacted at every input, and no journal at all.
@Suite("Recordings from any moment")
struct RecordFromAnyMomentTests {
    /// What the daemon keeps of its inputs.
    enum Keeping: String, CaseIterable, CustomStringConvertible {
        case noState, journal, journalCompactedAtEveryInput
        var description: String { rawValue }
    }

    static var app: App { BuiltInApps.named("launcher")!.withAllScreens(.attached, kinds: BuiltInApps.kinds) }

    /// The launcher keeping its inputs as `keeping` says, every screen on one host.
    static func launcher(_ keeping: Keeping, configure: (inout DaemonConfiguration) -> Void = { _ in }) throws
        -> (EmbeddedDaemon, host: EmbeddedConnection, debug: EmbeddedConnection) {
        let path: String? = keeping == .noState ? nil : makeTemporaryDirectory() + "/launcher.journal"
        let daemon = try EmbeddedDaemon(app: app, statePath: path) {
            $0.exitWhenAppFinishes = false
            if keeping == .journalCompactedAtEveryInput { $0.compactAfterInputs = 1 }
            configure(&$0)
        }
        return CompactionTests.attach(daemon)
    }

    /// Starts recording as `flowctl record` does: the subscription with payloads, then the tree with
    /// its starting state. Returns the recorder and the tree (nil and the refusal when refused).
    static func startRecording(_ daemon: EmbeddedDaemon) -> (EmbeddedConnection, Flowd_V1_Tree?, Flowd_V1_Error?) {
        let recorder = daemon.connect()
        _ = recorder.hello(role: .debug, name: "recorder")
        var subscribe = Flowd_V1_Subscribe()
        subscribe.payloads = true
        var getTree = Flowd_V1_GetTree()
        getTree.startState = true
        _ = recorder.write([.subscribe(subscribe), .getTree(getTree)])
        let bodies = recorder.readBodies()
        let tree = bodies.compactMap { if case .tree(let tree) = $0 { tree } else { nil } }.first
        let refusal = bodies.compactMap { if case .error(let error) = $0 { error } else { nil } }.first
        return (recorder, tree, refusal)
    }

    /// The recording so far, written and read back as `flowctl record` and `flowd replay` do.
    static func recording(_ recorder: EmbeddedConnection, from tree: Flowd_V1_Tree) throws -> Recording {
        let events = recorder.readBodies().compactMap { if case .event(let event) = $0, event.seq > tree.lastEventSeq { event } else { nil } }
        return try Recording.parse(bytes(tree, events))
    }

    /// The bytes of a recording file: the tree's frame, then each event's.
    static func bytes(_ tree: Flowd_V1_Tree, _ events: [Flowd_V1_Event]) throws -> [UInt8] {
        var bytes = try FrameEncoder.encode(Flowd_V1_Envelope(.tree(tree)), maxFrameSize: Int(UInt32.max))
        for event in events { bytes += try FrameEncoder.encode(Flowd_V1_Envelope(.event(event)), maxFrameSize: Int(UInt32.max)) }
        return bytes
    }

    /// The user goes back from the visible screen.
    static func back(_ daemon: EmbeddedDaemon, host: EmbeddedConnection) throws {
        var navigation = Flowd_V1_UserNavigation()
        navigation.screenID = try #require(OpenLinkJournalTests.visibleScreen(daemon))
        navigation.action = .back(Flowd_V1_Back())
        host.send(.userNavigation(navigation))
        EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
    }

    @Test(arguments: Keeping.allCases)
    func aRecordingStartedMidSessionReplaysToTheSamePlacements(_ keeping: Keeping) throws {
        let (daemon, host, _) = try Self.launcher(keeping)
        try CompactionTests.press(0, daemon, host: host)  // the menu opens the tutorial
        try CompactionTests.press(1, daemon, host: host)  // its next page

        let (recorder, started, refusal) = Self.startRecording(daemon)
        let tree = try #require(started, "refused: \(refusal?.message ?? "")")
        #expect(tree.startState.appVersion == Self.app.version)
        if keeping != .journalCompactedAtEveryInput {
            #expect(tree.startState.records.count(where: { $0.kind < 64 }) == 2, "the two inputs before the recording")
        }
        try CompactionTests.press(0, daemon, host: host)  // Done: the tutorial ends, its two screens are dismissed
        try CompactionTests.press(3, daemon, host: host)  // the profile is placed
        try Self.back(daemon, host: host)  // and dismissed
        try CompactionTests.press(2, daemon, host: host)  // the business profile is placed

        let recording = try Self.recording(recorder, from: tree)
        let kinds = recording.events.map(\.kind)
        #expect(kinds.count(where: { $0 == .place }) == 2 && kinds.count(where: { $0 == .dismiss }) == 3, "\(kinds)")
        let result = try Replay.run(recording, app: Self.app)
        #expect(result.isSame, "\(result.difference ?? "")")
        #expect(result.inputs == 4)
        #expect(result.compared >= 7, "two places, three dismissals and the menu's placement changes: \(result.compared)")

        // The same events without the starting state (as an older flowctl recorded them) start elsewhere.
        var old = recording
        old.tree.clearStartState()
        let oldResult = try Replay.run(old, app: Self.app)
        #expect(!oldResult.isSame)
        #expect(oldResult.difference?.contains("it carries no starting state") == true, "\(oldResult.difference ?? "")")
    }

    @Test func aRecordingWithoutAStartingStateReplaysFromTheAppsStartAsBefore() throws {
        let (daemon, host, _) = try Self.launcher(.journal)
        let (recorder, started, _) = Self.startRecording(daemon)
        var tree = try #require(started)
        #expect(tree.startState.records.isEmpty, "nothing happened yet")
        try CompactionTests.press(3, daemon, host: host)
        try Self.back(daemon, host: host)
        // Recorded as an older flowctl did: the tree alone, no start_state field in the file.
        tree.clearStartState()
        let recording = try Self.recording(recorder, from: tree)
        #expect(!recording.tree.hasStartState)
        let result = try Replay.run(recording, app: Self.app)
        #expect(result.isSame, "\(result.difference ?? "")")
        #expect(result.inputs == 2 && result.compared >= 2)
    }

    @Test func aDamagedStartingStateIsRefusedAsADamagedRecording() throws {
        let (daemon, host, _) = try Self.launcher(.noState)
        try CompactionTests.press(0, daemon, host: host)
        let (recorder, started, _) = Self.startRecording(daemon)
        let tree = try #require(started)
        try CompactionTests.press(1, daemon, host: host)
        let events = recorder.readBodies().compactMap { if case .event(let event) = $0, event.seq > tree.lastEventSeq { event } else { nil } }
        #expect(try Replay.run(Recording.parse(Self.bytes(tree, events)), app: Self.app).isSame)

        func record(_ kind: Int64, _ body: [UInt8]) -> Flowd_V1_StateRecord {
            var record = Flowd_V1_StateRecord()
            record.kind = kind
            record.body = Data(body)
            return record
        }
        // The state: the time the press was received (kind 67), then the press.
        #expect(tree.startState.records.map(\.kind) == [InputTimes.kind, 1])
        let damages: [(String, (inout [Flowd_V1_StateRecord]) -> Void, String)] = [
            ("an unknown kind", { $0.append(record(99, [1])) }, "record 3 of the state it starts from has kind 99, which no flowd writes"),
            ("an input cut short", { $0[1].body = Data([0x80]) }, "record 2 of the state it starts from does not decode as an input of kind 1"),
            ("a time cut short", { $0[0].body = Data([0x80]) }, "record 1 of the state it starts from is a time that does not decode"),
            ("a time past 2262", { $0[0].body = Data([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]) },
             "record 1 of the state it starts from is a time that does not decode (or is past the year 2262)"),
            ("a checkpoint after an input", { $0.append(record(Checkpoint.kind, [1])) }, "is a checkpoint, which only ever comes first"),
            ("a checkpoint of another layout", { $0 = [record(Checkpoint.kind, [9])] }, "is a checkpoint that does not decode (the checkpoint record has layout 9"),
            ("a saved state without its screen", { $0.append(record(DaemonJournal.savedStateKind, [])) }, "is a saved state that names no screen"),
        ]
        for (name, damage, message) in damages {
            var damaged = tree
            damage(&damaged.startState.records)
            #expect(throws: ReplayError.self, "\(name)") { try Recording.parse(Self.bytes(damaged, events), name: "bug.rec") }
            do {
                _ = try Recording.parse(Self.bytes(damaged, events), name: "bug.rec")
            } catch {
                #expect("\(error)".hasPrefix("bug.rec is damaged: "), "\(name): \(error)")
                #expect("\(error)".contains(message), "\(name): \(error)")
            }
        }

        // Well formed, but not the state the tree shows: a difference, not damage.
        var short = tree
        short.startState.records.removeAll()
        let result = try Replay.run(Recording.parse(Self.bytes(short, events)), app: Self.app)
        #expect(result.difference?.contains("the recording starts from another state than app launcher rebuilds") == true,
                "\(result.difference ?? "")")
        // Another version of the app: refused with the version it ran.
        var other = tree
        other.startState.appVersion = "0-other"
        let another = try Replay.run(Recording.parse(Self.bytes(other, events)), app: Self.app)
        #expect(another.difference?.contains("recorded on app launcher version 0-other") == true, "\(another.difference ?? "")")
    }

    @Test func aStartingStateLargerThanAFrameIsRefusedWithTheLimit() throws {
        let (daemon, host, _) = try Self.launcher(.journal) { $0.maxFrameSize = 4096 }
        // The profile placed and dismissed, 100 times: 200 inputs, more than 4 KiB of records.
        for _ in 0..<100 {
            try CompactionTests.press(3, daemon, host: host)
            try Self.back(daemon, host: host)
        }
        let (recorder, tree, refusal) = Self.startRecording(daemon)
        #expect(tree == nil)
        let error = try #require(refusal)
        #expect(error.code == .limitExceeded && !error.fatal)
        #expect(error.message.contains("more than a frame of this connection carries (4096)") && error.message.contains("--max-frame-size"),
                "\(error.message)")
        // The connection goes on: a tree without the state is answered.
        recorder.send(.getTree(Flowd_V1_GetTree()))
        #expect(recorder.readBodies().contains { if case .tree = $0 { true } else { false } })
    }

    @Test func withoutAJournalTheHistoryIsBoundedAndLetGoPastItsLimit() throws {
        #expect(try Persistence().startRecords().isEmpty, "no journal, nothing applied: the app's start")
        var history = InputHistory()
        let screen = ScreenID(rawValue: 2)
        for _ in 0..<InputHistory.limit { history.record(.screenLost(screen), key: 7, at: 0) }
        #expect(history.records.count == InputHistory.limit && !history.overflowed)
        #expect(history.records.last == Journal.Record(kind: FlowInput.screenLost(screen).encoded.kind, body: FlowInput.screenLost(screen).encoded.body, key: 7))
        history.record(.screenLost(screen), key: 0, at: 0)
        #expect(history.overflowed && history.records.isEmpty, "past the limit nothing is kept: the memory is bounded")
        history.record(.screenLost(screen), key: 0, at: 0)
        #expect(history.records.isEmpty)
    }
}
