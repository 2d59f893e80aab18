import DemoApps
import FlowControl
import FlowdTestSupport
import FlowWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The history of inputs from the outside (`GetHistory`, `GetMoment`, `flowctl history`, `flowctl at`,
/// `flowd replay --until --serve`): a seeded walk through the launcher by a screen host, the daemon's
/// tree kept after every step, then every moment asked for and compared with the tree the daemon
/// showed then; ranges exported and replayed to the same placements; a daemon served at a moment of
/// the export shows that moment's tree; and every bad request is refused, saying why.
@Suite("History: every moment, exported ranges and served moments")
struct HistoryIntegrationTests {
    /// The launcher walked at random (no Quit), with the tree after each step by the history's count.
    struct Walk {
        let daemon: DaemonProcess
        let debug: FlowClient
        /// (inputs in the history, the live tree's shape then), from the start.
        var seen: [(count: UInt64, shape: [String])] = []
        /// The display that provided `displays` before the steps, connected till the walk's end.
        var display: RawClient?
    }

    /// `provide`: a display connects after the first screen and provides these displays.
    static func walk(steps: Int, seed: UInt64, arguments: [String] = [], provide: Flowd_V1_Envelope.OneOf_Body? = nil) throws -> Walk {
        let daemon = try DaemonProcess(arguments: ["--app", "launcher"] + arguments, environment: ["FLOWD_PYTHON_SCREENS": "0"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: BuiltInApps.kinds)
        var buttons: [UInt64: Int] = [:]
        func settle() throws {
            // Until a settle brings nothing: the acknowledgements of the last one were handled too.
            while true {
                let frames = try host.settle()
                if frames.isEmpty { return }
                for frame in frames {
                    if let place = frame.place { buttons[place.screenID] = (place.state.object["buttons"] as? [Any])?.count ?? 0 }
                    if let update = frame.update { buttons[update.screenID] = (update.state.object["buttons"] as? [Any])?.count ?? 0 }
                }
            }
        }
        try settle()
        let debug = try FlowClient.connect(path: daemon.socketPath, role: .debug, name: "history-test")
        var walk = Walk(daemon: daemon, debug: debug)
        if let provide {
            let display = try RawClient(path: daemon.socketPath)
            try display.handshake(role: .display)
            try display.send(provide)
            _ = try display.ping()
            walk.display = display
        }
        func look() throws { walk.seen.append((try debug.historyPage(limit: 1).count, try debug.tree().shapeLines)) }
        try look()
        var random = SeededGenerator(seed: seed)
        for _ in 0..<steps {
            let tree = try debug.tree()
            guard let visible = tree.visibleScreens.last else { break }
            // The menu's last button is Quit: the app would finish and its journal with it.
            let count = buttons[visible.id] ?? 0
            let pressable = visible.kind == "menu" ? count - 1 : count
            if pressable > 0, Int.random(in: 0..<5, using: &random) > 0 {
                try host.press(Int.random(in: 0..<pressable, using: &random), on: visible.id)
            } else {
                try host.back(from: visible.id)
            }
            try settle()
            try look()
        }
        return walk
    }

    @Test func everyMomentIsTheTreeTheDaemonShowedThen() throws {
        let walk = try Self.walk(steps: 60, seed: 31)
        let last = try #require(walk.seen.last)
        #expect(last.count > 40, "a walk of 60 steps journals inputs: \(last.count)")
        for (count, shape) in walk.seen {
            let moment = try walk.debug.moment(count)
            #expect(moment.index == count && moment.count == last.count)
            #expect(moment.tree.shapeLines == shape, "moment \(count)")
            // Each live screen of the moment has its state, as JSON.
            let screens = Set(moment.tree.screenIDs)
            #expect(Set(moment.screens.map(\.id)) == screens, "moment \(count)")
            #expect(moment.screens.allSatisfy { $0.state.isJSON && !$0.state.data.isEmpty })
        }
        // Asking changed nothing in the live app: the same tree, and no input journaled.
        #expect(try walk.debug.tree().shapeLines == last.shape)
        let history = try walk.debug.history()
        #expect(history.count == last.count && history.inputs.count == Int(last.count))
        #expect(history.inputs.map(\.index) == Array(1...last.count))
        #expect(history.inputs.allSatisfy { $0.timeUnixNanos > 1_700_000_000_000_000_000 }, "each input has the time it was received")
        #expect(!history.fromCheckpoint && history.stopped.isEmpty)
        // What one input changed is what the moments before and after it say.
        // A screen it placed is in the moment after it, unless the same input dismissed it; one it
        // dismissed is not.
        var placedAndShown = 0
        for input in history.inputs where !input.change.placed.isEmpty || !input.change.dismissed.isEmpty {
            let after = Set(try walk.debug.moment(input.index).tree.screenIDs)
            let placed = Set(input.change.placed), dismissed = Set(input.change.dismissed)
            #expect(placed.subtracting(dismissed).isSubset(of: after),
                    "input \(input.index) placed \(placed.sorted()), dismissed \(dismissed.sorted()); the moment after it has \(after.sorted())")
            #expect(dismissed.isDisjoint(with: after),
                    "input \(input.index) dismissed \(dismissed.sorted()); the moment after it has \(after.sorted())")
            if !placed.subtracting(dismissed).isEmpty { placedAndShown += 1 }
        }
        #expect(placedAndShown > 0, "the walk has inputs that placed screens it kept")
        // Pages: a small frame gets the history in several answers, none lost.
        let small = try FlowClient.connect(path: walk.daemon.socketPath, role: .debug, name: "small", maxFrameSize: 4096)
        #expect(try small.history().inputs.map(\.index) == history.inputs.map(\.index))
        #expect(try small.historyPage(from: 1, limit: 0, events: true).inputs.count < history.inputs.count)
    }

    @Test func anExportedRangeReplaysAndAServedMomentIsThatMoment() throws {
        let walk = try Self.walk(steps: 40, seed: 7)
        let socket = walk.daemon.socketPath
        let history = try walk.debug.history()
        let count = history.count
        #expect(count > 20)

        // Export two ranges; each replays to the same placements.
        let whole = walk.daemon.directory + "/whole.rec"
        var run = try ProductRun.run("flowctl", ["history", "--from", "1", "--export", whole, "--socket", socket])
        #expect(run.status == 0 && run.stderr.contains("wrote \(whole)"), "\(run.stderr)")
        // The hint names the program that made the recording (Stats.server): flowd here.
        #expect(run.stderr.contains("check it with `flowd replay \(whole)`"), "\(run.stderr)")
        run = try ProductRun.run("flowd", ["replay", whole])
        #expect(run.status == 0 && run.stdout.contains("same placements ("), "\(run.stdout) \(run.stderr)")
        let middle = walk.daemon.directory + "/middle.rec"
        run = try ProductRun.run("flowctl", ["history", "--from", "10", "--to", "\(count - 5)", "--export", middle, "--socket", socket])
        #expect(run.status == 0, "\(run.stderr)")
        run = try ProductRun.run("flowd", ["replay", middle])
        #expect(run.status == 0 && run.stdout.contains("same placements ("), "\(run.stdout) \(run.stderr)")
        // Against another app it is a difference, not a pass.
        run = try ProductRun.run("flowd", ["replay", middle, "--app", "modal"])
        #expect(run.status == 1, "\(run.stdout)")

        // Served at a moment of the whole export: the recording's inputs up to moment 15 (a dismissal's
        // acknowledgement is no recorded input: the served daemon's fake screens acknowledged it).
        var moment: UInt64 = 15
        while moment < count, history.inputs[Int(moment)].kind == "dismissal completed" { moment += 1 }
        let recorded = history.inputs[..<Int(moment)].count { $0.kind != "dismissal completed" }
        let served = walk.daemon.directory + "/s2"
        let daemon = try FlowctlProcess(executable: productsDirectory.appendingPathComponent("flowd"),
                                        ["replay", whole, "--until", "\(recorded)", "--serve", "--", "--socket", served])
        defer { daemon.process.terminate() }
        #expect(daemon.waitForStderr("restored the app from its journal"), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("at the moment after input \(recorded) of "), "\(daemon.stderr)")
        let attached = try FlowClient.connect(path: served, role: .debug, name: "served")
        #expect(try attached.tree().shapeLines == walk.seen.first { $0.count == moment }?.shape, "served at moment \(moment)")
        // Hosts attach and go on from there.
        let host = try RawClient(path: served)
        try host.handshake(provides: BuiltInApps.kinds)
        #expect(try host.settle().contains { $0.place != nil }, "the served moment's screens are placed for the new host")
        // Stopped, it removes the temporary folder it made for the journal.
        let folder = try #require(Self.journalFolder(in: daemon.stderr), "\(daemon.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder))
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder), "replay --serve removed \(folder)")
    }

    /// The folder of the temporary journal `flowd replay --serve` says it restored from.
    static func journalFolder(in stderr: String) -> String? {
        guard let said = stderr.range(of: "restored from the journal ") else { return nil }
        let path = stderr[said.upperBound...].prefix { $0 != "\n" }
        return path.hasSuffix(".journal") ? (String(path) as NSString).deletingLastPathComponent : nil
    }

    @Test func flowctlPrintsTheHistoryAndMomentsAndRefusesWhatIsNotThere() throws {
        let walk = try Self.walk(steps: 12, seed: 3)
        let socket = walk.daemon.socketPath
        let count = try walk.debug.historyPage(limit: 1).count
        var run = try ProductRun.run("flowctl", ["history", "--socket", socket])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("flowd app launcher version "), "\(run.stdout)")
        #expect(run.stdout.contains("\(count) inputs since the app's start (moment 0)"), "\(run.stdout)")
        #expect(run.stdout.contains(#"output {"didPressButton":{"index":"#), "\(run.stdout)")
        #expect(run.stdout.split(separator: "\n").count == Int(count) + 1)
        run = try ProductRun.run("flowctl", ["history", "--json", "--from", "2", "--to", "3", "--socket", socket])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect((json["inputs"] as? [[String: Any]])?.compactMap { $0["index"] as? String } == ["2", "3"], "\(run.stdout)")

        run = try ProductRun.run("flowctl", ["at", "\(count)", "--socket", socket])
        #expect(run.status == 0 && run.stdout.hasPrefix("moment \(count) of \(count), after input \(count) at "), "\(run.stdout)")
        #expect(run.stdout.contains("\nflows\n") && run.stdout.contains("\nnavigation\n") && run.stdout.contains("\nstates\n"), "\(run.stdout)")
        run = try ProductRun.run("flowctl", ["at", "0", "--json", "--socket", socket])
        let moment = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect((moment["tree"] as? [String: Any])?["app"] as? String == "launcher", "\(run.stdout)")

        // Bad requests: said, non-zero, and the daemon goes on.
        run = try ProductRun.run("flowctl", ["at", "\(count + 1)", "--socket", socket])
        #expect(run.status == 1 && run.stderr.contains("there is no moment \(count + 1): the history holds inputs 1 to \(count)"), "\(run.stderr)")
        // Numbers a client may send as they are: no trap, the range as far as it goes.
        run = try ProductRun.run("flowctl", ["history", "--to", "9223372036854775807", "--socket", socket])
        #expect(run.status == 0 && run.stdout.split(separator: "\n").count == Int(count) + 1, "\(run.stdout) \(run.stderr)")
        run = try ProductRun.run("flowctl", ["history", "--from", "0", "--socket", socket])
        #expect(run.status == 64 && run.stderr.contains("--from must be at least 1"), "\(run.stderr)")
        run = try ProductRun.run("flowctl", ["history", "--from", "5", "--to", "2", "--socket", socket])
        #expect(run.status == 64 && run.stderr.contains("must not be before --from"), "\(run.stderr)")
        run = try ProductRun.run("flowctl", ["history", "--from", "\(count + 1)", "--export", walk.daemon.directory + "/x.rec", "--socket", socket])
        #expect(run.status == 1 && run.stderr.contains("holds no input"), "\(run.stderr)")
        #expect(try walk.debug.historyPage(limit: 1).count == count, "refusals change nothing")

        let file = walk.daemon.directory + "/all.rec"
        #expect(try ProductRun.run("flowctl", ["history", "--export", file, "--socket", socket]).status == 0)
        run = try ProductRun.run("flowd", ["replay", file, "--until", "2"])
        #expect(run.status == 64 && run.stderr.contains("--until goes with --serve"), "\(run.stderr)")
        run = try ProductRun.run("flowd", ["replay", file, "--until", "9999", "--serve", "--", "--socket", walk.daemon.directory + "/s3"])
        #expect(run.status == 64 && run.stderr.contains("the recording holds"), "\(run.stderr)")
        let existing = walk.daemon.directory + "/taken.journal"
        _ = FileManager.default.createFile(atPath: existing, contents: Data("mine".utf8))
        run = try ProductRun.run("flowd", ["replay", file, "--serve", "--", "--socket", walk.daemon.directory + "/s4", "--state", existing])
        #expect(run.status == 1 && run.stderr.contains("\(existing) exists"), "\(run.stderr)")
        #expect(FileManager.default.contents(atPath: existing) == Data("mine".utf8), "a file in the way is kept as it was")
        // A socket flowd refuses (directly in /tmp): nothing served, and the temporary folder made for it is gone.
        run = try ProductRun.run("flowd", ["replay", file, "--serve", "--", "--socket", "/tmp/flowd-history-test-\(getpid()).sock"])
        #expect(run.status == 73 && run.stderr.contains("use a private"), "\(run.stderr)")
        let folder = try #require(Self.journalFolder(in: run.stderr), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder), "replay --serve removed \(folder)")
    }

    @Test func withoutAJournalAndAfterACompactionTheHistoryIsWhatARestoreWouldReplay() throws {
        let memory = try Self.walk(steps: 15, seed: 11, arguments: ["--no-state"])
        let last = try #require(memory.seen.last)
        #expect(try memory.debug.moment(last.count).tree.shapeLines == last.shape)

        let compacted = try Self.walk(steps: 40, seed: 5, arguments: ["--compact-after", "25"])
        let history = try compacted.debug.history()
        #expect(history.fromCheckpoint, "the journal was compacted: moment 0 is its checkpoint")
        #expect(history.count < 25, "only the inputs since the checkpoint are held: \(history.count)")
        #expect(try compacted.debug.moment(0).index == 0)
        // A question of an earlier numbering (before the compaction) is refused, not answered from this one.
        #expect(history.epoch > 1, "numbered again at each compaction")
        #expect(throws: ClientError.self) { try compacted.debug.moment(0, expectEpoch: history.epoch - 1) }
        #expect(try compacted.debug.moment(0, expectEpoch: history.epoch).epoch == history.epoch)
        let now = try compacted.debug.tree().shapeLines
        #expect(try compacted.debug.moment(history.count).tree.shapeLines == now)
    }
}

extension Flowd_V1_Tree {
    /// Every screen of the navigation hierarchy.
    var screenIDs: [UInt64] {
        var found: [UInt64] = []
        func walk(_ node: Flowd_V1_NavNode) {
            if node.kind == .screen { found.append(node.id) }
            node.children.forEach(walk)
            if node.hasPresented { walk(node.presented) }
        }
        if hasWindow { walk(window) }
        return found
    }
}
