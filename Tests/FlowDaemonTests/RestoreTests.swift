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

/// The daemon restarts where it was (docs/restore.md): the embedded daemon journals into a real
/// SQLite file, "crashes" (nothing more runs; what was committed stays), and a new one restores from
/// the same file — the flows, the navigation and every screen re-placed for the host that comes.
@Suite("Daemon restore")
struct RestoreTests {
    typealias Body = Flowd_V1_Envelope.OneOf_Body

    static func places(_ bodies: [Body]) -> [Flowd_V1_Place] { bodies.compactMap { if case .place(let p) = $0 { p } else { nil } } }

    /// A deep-stack daemon journaling into `path` (restoring from it if it holds inputs).
    static func deepStack(_ path: String, _ configure: (inout DaemonConfiguration) -> Void = { _ in }) throws -> EmbeddedDaemon {
        try EmbeddedDaemon(app: EmbeddedDaemonTests.app("deep-stack"), statePath: path) {
            $0.exitWhenAppFinishes = false
            configure(&$0)
        }
    }

    static func shape(_ daemon: EmbeddedDaemon) -> [String] { TreeShape.lines(daemon.daemon.tree()) }

    /// The screens a tree shows, with what a host is told about each: id, kind, owner, visibility.
    static func screens(_ tree: Flowd_V1_Tree) -> [String] {
        screenNodes(tree).map { "\($0.id) \($0.screen.kind) flow \($0.screen.flowID)\($0.screen.visible ? " visible" : "")" }
    }

    /// The screen nodes of a tree's navigation, bottom first (presented trees after their presenter).
    static func screenNodes(_ tree: Flowd_V1_Tree) -> [Flowd_V1_NavNode] {
        var found: [Flowd_V1_NavNode] = []
        func walk(_ node: Flowd_V1_NavNode) {
            if node.kind == .screen { found.append(node) }
            node.children.forEach(walk)
            if node.hasPresented { walk(node.presented) }
        }
        walk(tree.window)
        return found
    }

    static func back(_ screen: UInt64, from host: EmbeddedConnection) {
        var navigation = Flowd_V1_UserNavigation()
        navigation.screenID = screen
        navigation.action = .back(Flowd_V1_Back())
        host.send(.userNavigation(navigation))
    }

    static func journalPath() -> String { makeTemporaryDirectory() + "/deep-stack.journal" }

    @Test func aDaemonKilledAtEveryStepOfARandomWalkRestoresTheSameTreeAndReplacesEveryScreen() throws {
        let path = Self.journalPath()
        var generator = SeededGenerator(seed: 16)
        var daemon = try Self.deepStack(path)
        var (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        var stack = Self.places(answer).map(\.screenID)
        var restores = 0
        for step in 0..<120 {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<5:
                EmbeddedDaemonTests.press(0, on: stack.last!, from: host)
                let pushed = host.readBodies()
                EmbeddedDaemonTests.ackAll(pushed, on: host)
                stack += Self.places(pushed).map(\.screenID)
            case 5..<8 where stack.count > 1:
                Self.back(stack.removeLast(), from: host)
                // Half the time the Dismiss is still unacknowledged when the daemon dies.
                if Bool.random(using: &generator) { EmbeddedDaemonTests.ackAll(host.readBodies(), on: host) }
            default:
                let before = Self.shape(daemon)
                let screensBefore = Self.screens(daemon.daemon.tree())
                daemon.crash()
                daemon = try Self.deepStack(path)
                restores += 1
                #expect(Self.shape(daemon) == before, "step \(step): the restored tree is the one before the kill")
                #expect(daemon.daemon.stats().restoredInputs > 0)
                #expect(daemon.daemon.pendingDismissals == 0, "step \(step): the old daemon's dismissals completed (their host is gone)")
                #expect(daemon.daemon.stats().screensHeld == 0 && daemon.daemon.delivery.heldCommandCount == stack.count,
                        "step \(step): every screen waits for a host")
                (host, answer) = EmbeddedDaemonTests.host(daemon)
                let replaced = Self.places(answer)
                #expect(replaced.map(\.screenID) == stack, "step \(step): every screen re-placed, bottom first")
                #expect(replaced.allSatisfy { !$0.animated })
                #expect(replaced.map(\.placement.visible) == stack.indices.map { $0 == stack.count - 1 }, "only the top is visible")
                #expect(Self.screens(daemon.daemon.tree()) == screensBefore)
                EmbeddedDaemonTests.ackAll(answer, on: host)
                #expect(daemon.daemon.invariantViolations().isEmpty, "step \(step): \(daemon.daemon.invariantViolations())")
            }
        }
        #expect(restores > 5, "the walk restored \(restores) times")
        // Finishing the app clears the journal: the next start is fresh.
        EmbeddedDaemonTests.press(2, on: stack.first!, from: host)
        EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
        daemon.crash()
        daemon = try Self.deepStack(path)
        #expect(daemon.daemon.stats().restoredInputs == 0)
        #expect(daemon.daemon.delivery.heldCommandCount == 1, "one item screen, as on a first start")
    }

    @Test func aGracefulStopKeepsTheJournalAndTheNextStartRestoresIt() throws {
        let path = Self.journalPath()
        let daemon = try Self.deepStack(path)
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        EmbeddedDaemonTests.press(0, on: Self.places(answer)[0].screenID, from: host)
        EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
        let before = Self.shape(daemon)
        daemon.shutdown()
        EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
        daemon.crash()
        let again = try Self.deepStack(path)
        #expect(Self.shape(again) == before, "the shutdown's unwinding was not journaled")
        #expect(again.daemon.delivery.heldCommandCount == 2)
    }

    @Test func aSecondDaemonOnTheSameJournalIsRefused() throws {
        let path = Self.journalPath()
        let first = try Self.deepStack(path)
        #expect {
            _ = try Self.deepStack(path)
        } throws: { error in
            "\(error)".contains("in use by process \(getpid())")
        }
        _ = first
    }

    @Test(arguments: ["a refused input", "a wrong check"])
    func aJournalThatDoesNotReplayIsMovedAsideAndTheAppStartsFresh(_ damage: String) throws {
        let path = Self.journalPath()
        do {
            let daemon = try Self.deepStack(path)
            let (host, answer) = EmbeddedDaemonTests.host(daemon)
            EmbeddedDaemonTests.ackAll(answer, on: host)
            for _ in 0..<3 {
                EmbeddedDaemonTests.press(0, on: Self.places(answer)[0].screenID, from: host)
                EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
            }
            daemon.crash()
        }
        do {
            let journal = try Journal(path: path, identity: .init(app: "deep-stack", appVersion: "1"))
            var records = try journal.records()
            let input: FlowInput = damage == "a refused input"
                ? .output(ScreenID(rawValue: 999), payload: Data(#"{"didPressButton":{"index":0}}"#.utf8))
                : .terminateAll(animated: false)
            let (kind, body) = input.encoded
            records = [Journal.Record(kind: kind, body: body, check: damage == "a wrong check" ? 42 : nil)]
            try journal.append(records)
        }
        let daemon = try Self.deepStack(path)
        #expect(daemon.daemon.stats().restoredInputs == 0)
        #expect(daemon.daemon.delivery.heldCommandCount == 1, "a fresh start: one item screen")
        let directory = (path as NSString).deletingLastPathComponent
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("deep-stack.journal.refused-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
        try #require(aside.count == 1, "the journal that did not replay is kept: \(aside)")
        daemon.crash()
        let old = try Journal(path: directory + "/" + aside[0], identity: .init(app: "deep-stack", appVersion: "1"))
        let kept = try old.records().count { $0.kind < 64 }
        #expect(kept == 4, "kept whole: the 3 presses and the damage, got \(kept)")
    }
}

/// Keys make an input the host is not sure about safe to send again (docs/protocol.md §20).
@Suite("Input keys")
struct InputKeyTests {
    static func keyedPress(_ screen: UInt64, key: UInt64, from host: EmbeddedConnection) {
        var output = Flowd_V1_Output()
        output.screenID = screen
        output.payload = .json(Data(#"{"didPressButton":{"index":0}}"#.utf8))
        output.key = key
        host.send(.output(output))
    }

    @Test func aRepeatedKeyIsAppliedOnceEvenAcrossARestart() throws {
        let path = RestoreTests.journalPath()
        let daemon = try RestoreTests.deepStack(path)
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let root = RestoreTests.places(answer)[0].screenID
        Self.keyedPress(root, key: 77, from: host)
        EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
        Self.keyedPress(root, key: 77, from: host)
        #expect(host.readBodies().isEmpty, "the repeat is dropped without an answer")
        #expect(daemon.daemon.stats().screens == 2)
        daemon.crash()

        let restored = try RestoreTests.deepStack(path)
        let (again, replaced) = EmbeddedDaemonTests.host(restored)
        EmbeddedDaemonTests.ackAll(replaced, on: again)
        Self.keyedPress(root, key: 77, from: again)
        #expect(again.readBodies().isEmpty, "the key was journaled: still a repeat after the restart")
        #expect(restored.daemon.stats().screens == 2)
        Self.keyedPress(root, key: 78, from: again)
        #expect(restored.daemon.stats().screens == 3, "a new key is a new input")
        Self.keyedPress(root, key: 0, from: again)
        Self.keyedPress(root, key: 0, from: again)
        #expect(restored.daemon.stats().screens == 5, "no key: every press counts")
    }
}

/// A power cut in the middle of the journal's writes: the daemon restores an earlier state that it
/// really was in, or refuses the file and keeps it (docs/restore.md "Power loss").
@Suite("Daemon restore after power loss")
struct RestorePowerLossTests {
    @Test func aLogCutAtEveryFrameAndInsideEveryFrameRestoresATreeTheDaemonReallyHad() throws {
        let path = RestoreTests.journalPath()
        let daemon = try RestoreTests.deepStack(path)
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        var stack = RestoreTests.places(answer).map(\.screenID)
        // The tree after each committed batch, by the number of inputs committed so far.
        var shapes: [UInt64: [String]] = [0: RestoreTests.shape(daemon)]
        var generator = SeededGenerator(seed: 5)
        for _ in 0..<40 {
            if stack.count > 1, Bool.random(using: &generator) {
                RestoreTests.back(stack.removeLast(), from: host)
            } else {
                EmbeddedDaemonTests.press(0, on: stack.last!, from: host)
            }
            // Every call into the embedded daemon ends with its iteration's commit.
            shapes[daemon.daemon.stats().journaledInputs] = RestoreTests.shape(daemon)
            let bodies = host.readBodies()
            EmbeddedDaemonTests.ackAll(bodies, on: host)
            stack += RestoreTests.places(bodies).map(\.screenID)
            shapes[daemon.daemon.stats().journaledInputs] = RestoreTests.shape(daemon)
        }
        // What the disk holds when the power goes: the log as the live writer left it, cut at every
        // frame boundary and inside every frame.
        let log = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let offsets = try #require(logFrameOffsets(log))
        // Whole frames, then (the writer maps its end) the zeros allocated ahead of them.
        try #require(onlyZeros(log, from: offsets.last ?? 0), "a log of whole frames: \(log.count) bytes")
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var restoredCounts: Set<UInt64> = []
        // Inside a frame: in its 24-byte header, and halfway through its records.
        var inside: [Int] = []
        for (start, end) in zip(offsets, offsets.dropFirst()) {
            let records = end - start - 24
            inside += [start + 7, start + 24 + records / 2]
        }
        let cuts = offsets + inside + [offsets[0] - 3, log.count]
        for (index, cut) in cuts.enumerated() {
            let copy = "\(directory)/cut\(index).journal"
            try Data(log.prefix(cut)).write(to: URL(fileURLWithPath: copy))
            let restored = try RestoreTests.deepStack(copy)
            let inputs = restored.daemon.stats().restoredInputs
            restoredCounts.insert(inputs)
            #expect(shapes[inputs] == RestoreTests.shape(restored), "cut at \(cut): \(inputs) inputs restored to a tree the daemon had after them")
            if cut < offsets[0] { #expect(inputs == 0, "a header cut short is moved aside: a fresh start") }
            #expect(restored.daemon.invariantViolations().isEmpty)
            restored.crash()
        }
        #expect(restoredCounts.contains(daemon.daemon.stats().journaledInputs), "the whole log restores everything")
        #expect(restoredCounts.count > 3, "cuts restore earlier states: \(restoredCounts.sorted())")
    }
}
