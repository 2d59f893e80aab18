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

/// What a host saves for a screen (`SaveState`, docs/protocol.md §19) — an unsent line, a scroll
/// position — comes back in the screen's next `Place`: on the next host, after a daemon restore,
/// after a compaction. The flows never see it.
@Suite("Screen-owned saved state")
struct SavedStateTests {
    static func save(_ text: String, on screen: UInt64, from host: EmbeddedConnection) {
        var saved = Flowd_V1_SaveState()
        saved.screenID = screen
        saved.data = Data(text.utf8)
        host.send(.saveState(saved))
    }

    static func errorCodes(_ bodies: [Flowd_V1_Envelope.OneOf_Body]) -> [Flowd_V1_ErrorCode] {
        bodies.compactMap { body -> Flowd_V1_ErrorCode? in if case .error(let e) = body { return e.code } else { return nil } }
    }

    static func saved(_ bodies: [Flowd_V1_Envelope.OneOf_Body]) -> [UInt64: String] {
        Dictionary(RestoreTests.places(bodies).map { ($0.screenID, String(decoding: $0.savedState, as: UTF8.self)) }) { $1 }
    }

    @Test func aSavedStateComesBackAfterADaemonRestoreAndNothingElseChanges() throws {
        let path = RestoreTests.journalPath()
        let daemon = try RestoreTests.deepStack(path)
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let first = try #require(RestoreTests.places(answer).first?.screenID)
        #expect(RestoreTests.places(answer).first?.savedState.isEmpty == true, "a new screen has nothing saved")
        EmbeddedDaemonTests.press(0, on: first, from: host)
        let pushed = host.readBodies()
        EmbeddedDaemonTests.ackAll(pushed, on: host)
        let second = try #require(RestoreTests.places(pushed).first?.screenID)
        Self.save("half a line", on: second, from: host)
        Self.save("scrolled to 40", on: first, from: host)
        Self.save("half a line, longer", on: second, from: host)  // the last one wins
        #expect(host.readBodies().isEmpty, "SaveState is not answered")
        let before = RestoreTests.shape(daemon)
        let inputs = daemon.daemon.stats().journalInputs
        let restored = try daemon.crashAndRestore()
        #expect(RestoreTests.shape(restored) == before)
        #expect(restored.daemon.stats().restoredInputs == inputs, "saved states are not inputs")
        let (again, replaced) = EmbeddedDaemonTests.host(restored)
        #expect(Self.saved(replaced) == [first: "scrolled to 40", second: "half a line, longer"])
        _ = again
    }

    /// With compaction off, a host saving in a loop cannot grow the journal without bound: past
    /// 32 MiB of saved states since the last checkpoint, SaveState gets a non-fatal LIMIT_EXCEEDED
    /// and is not kept; the journal holds the ones before it.
    @Test func savedStatesPastTheirBoundSinceTheCheckpointAreRefused() throws {
        let path = RestoreTests.journalPath()
        let daemon = try EmbeddedDaemon(app: try EmbeddedDaemonTests.app("deep-stack"), statePath: path) { $0.compactAfterInputs = 0 }
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let screen = try #require(RestoreTests.places(answer).first?.screenID)
        let largest = String(repeating: "x", count: WireProtocol.maxSavedStateBytes)
        let fit = 2_048
        for _ in 0..<fit { Self.save(largest, on: screen, from: host) }
        #expect(host.readBodies().isEmpty, "each of the first \(fit) is kept")
        Self.save("one more", on: screen, from: host)
        let refused = host.readBodies()
        #expect(Self.errorCodes(refused) == [.limitExceeded])
        let message = refused.compactMap { body -> String? in if case .error(let e) = body { e.message } else { nil } }.first ?? ""
        #expect(message.contains("bytes of saved states since its last checkpoint") && message.contains("was not kept"), "\(message)")
        let restored = try daemon.crashAndRestore()
        let (_, replaced) = EmbeddedDaemonTests.host(restored)
        #expect(Self.saved(replaced)[screen] == largest, "the last one kept")
    }

    @Test func theNextHostGetsTheSavedStateWhenTheFirstLeavesForGood() throws {
        let daemon = try RestoreTests.deepStack(RestoreTests.journalPath())
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let screen = try #require(RestoreTests.places(answer).first?.screenID)
        Self.save("typed", on: screen, from: host)
        host.send(.shutdown(Flowd_V1_Shutdown()))
        _ = host.readBodies()
        let (next, placed) = EmbeddedDaemonTests.host(daemon)
        #expect(Self.saved(placed) == [screen: "typed"])
        // An empty one clears it.
        EmbeddedDaemonTests.ackAll(placed, on: next)
        Self.save("", on: screen, from: next)
        next.send(.shutdown(Flowd_V1_Shutdown()))
        _ = next.readBodies()
        let (_, third) = EmbeddedDaemonTests.host(daemon)
        #expect(Self.saved(third) == [screen: ""])
    }

    @Test func tooLargeOrAnotherHostsScreenIsRefusedAndTheConnectionStays() throws {
        let daemon = try RestoreTests.deepStack(RestoreTests.journalPath())
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let screen = try #require(RestoreTests.places(answer).first?.screenID)
        Self.save(String(repeating: "x", count: WireProtocol.maxSavedStateBytes + 1), on: screen, from: host)
        let errors = host.readBodies().compactMap { if case .error(let e) = $0 { e } else { nil } }
        #expect(errors.map(\.code) == [.limitExceeded])
        #expect(errors.first?.message.contains("at most 16384") == true, "\(errors)")
        let other = daemon.connect()
        _ = other.hello(role: .screenHost, provides: ["other"])
        Self.save("mine", on: screen, from: other)
        #expect(Self.errorCodes(other.readBodies()) == [.notYourScreen])
        Self.save("x", on: 999, from: host)
        #expect(Self.errorCodes(host.readBodies()) == [.unknownScreen])
        // Still connected: a press works.
        EmbeddedDaemonTests.press(0, on: screen, from: host)
        #expect(RestoreTests.places(host.readBodies()).count == 1)
    }

    @Test func aCompactionKeepsTheSavedStates() throws {
        let path = makeTemporaryDirectory() + "/tally.journal"
        let daemon = try CompactionTests.tally(path, every: 2) { KeptTallyFlow() }
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let screen = try #require(RestoreTests.places(answer).first?.screenID)
        Self.save("before the checkpoints", on: screen, from: host)
        for _ in 0..<5 { try CompactionTests.press(0, daemon, host: host) }
        #expect(daemon.daemon.stats().journalCheckpoints >= 2)
        let restored = try daemon.crashAndRestore()
        let (_, replaced) = EmbeddedDaemonTests.host(restored)
        #expect(Self.saved(replaced) == [screen: "before the checkpoints"])
    }

    @Test func aDebugClientCannotSaveState() throws {
        let daemon = try RestoreTests.deepStack(RestoreTests.journalPath())
        let debug = daemon.connect()
        _ = debug.hello(role: .debug)
        Self.save("x", on: 2, from: debug)
        #expect(Self.errorCodes(debug.readBodies()) == [.unexpectedMessage])
    }
}
