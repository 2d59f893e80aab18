import DemoApps
import FlowApp
import FlowDaemon
import FlowDaemonTesting
import FlowKit
import FlowWire
import Foundation
import Logging
import Testing

/// A screen whose state is a text its host sets or adds to: its state grows as large as the host asks,
/// past any frame the host may send.
enum NoteScreen: ScreenModule {
    static let kind = "note"
    struct State: Codable, Sendable { var text: String }
    enum Output: Codable, Sendable {
        case set(text: String)
        case append(text: String)
    }
}

/// Shows one note and sets or extends its text on each output.
final class NoteFlow: Flow {
    typealias RequiredContext = NavigationStack
    private var text = ""

    func start(_ flow: FlowContext<NoteFlow>) {
        let note = flow.show(NoteScreen.self, .init(text: ""))
        note.onOutput { [self] output in
            switch output {
            case .set(let text): self.text = text
            case .append(let more): text += more
            }
            note.update(.init(text: text))
        }
    }
}

/// Frames bigger than the other side's `max_frame_size` (issue 46, bug 2): each is answered or
/// counted, and logged; none disappears. On the embedded daemon, with an in-memory log.
@Suite("Frames over the peer's maximum frame size")
struct OversizeFrameTests {
    static var notesApp: App { App(name: "notes", modules: [NoteScreen.self], placer: windowRoot.withNavigationEmbedding()) { NoteFlow() } }

    /// A notes daemon logging into `log`, and a host of notes that accepts frames of `hostFrameSize`
    /// bytes (0: the default), its first `Place` acknowledged. Returns the daemon, the host and the
    /// note's screen id.
    static func notes(log: LogLines, hostFrameSize: UInt32 = 0) throws -> (EmbeddedDaemon, EmbeddedConnection, UInt64) {
        let daemon = EmbeddedDaemon(app: notesApp, logger: log.logger) { $0.exitWhenAppFinishes = false }
        let host = daemon.connect()
        let answer = host.hello(role: .screenHost, name: "notes-host", provides: ["note"], maxFrameSize: hostFrameSize)
        let place = try #require(answer.compactMap { if case .place(let m) = $0 { m } else { nil } }.first, "the note is placed")
        host.ack(place.screenID, serial: place.serial)
        return (daemon, host, place.screenID)
    }

    /// Sets the note's text (or adds to it), as its host's output.
    static func setText(_ text: String, appending: Bool = false, on screen: UInt64, from host: EmbeddedConnection) {
        var output = Flowd_V1_Output()
        output.screenID = screen
        output.payload = .json(try! JSONEncoder().encode(appending ? NoteScreen.Output.append(text: text) : .set(text: text)))
        host.send(.output(output))
    }

    @Test func anUpdateOverTheHostsFrameSizeFailsLoudlyAndTheScreenIsRemovedWithoutAnAckTimeout() throws {
        let log = LogLines()
        let (daemon, host, screen) = try Self.notes(log: log, hostFrameSize: 4_096)
        Self.setText(String(repeating: "n", count: 2_100), on: screen, from: host)
        for body in host.readBodies() { if case .update(let m) = body { host.ack(m.screenID, serial: m.serial) } }
        // The host's output fits its frame; the state it makes does not.
        Self.setText(String(repeating: "n", count: 2_100), appending: true, on: screen, from: host)
        let frames = host.readFrames()
        let error = try #require(frames.compactMap { if case .error(let m) = $0.body { m } else { nil } }.first,
                                 "the host is told the Update did not fit; got \(frames.map { $0.body?.name ?? "?" })")
        #expect(error.code == .limitExceeded)
        #expect(!error.fatal)
        #expect(error.screenID == screen)
        #expect(error.serial > 0, "the error names the serial that was not sent")
        #expect(error.message.contains("4096"), "it names the limit: \(error.message)")
        #expect(error.message.contains("Update"), "and what was not sent: \(error.message)")
        let dismiss = try #require(frames.compactMap { if case .dismiss(let m) = $0.body { m } else { nil } }.first,
                                   "the host cannot show the screen: it is removed")
        #expect(dismiss.screenID == screen && dismiss.reason == .removed)
        #expect(dismiss.serial == error.serial + 1, "the Dismiss takes the next serial; the host never saw the failed one")
        // The seq of the frames the host got has no gap: the refused frame gave its seq back.
        let seqs = frames.map(\.seq)
        #expect(seqs == Array((seqs.first ?? 1)...(seqs.first ?? 1) + UInt64(seqs.count) - 1), "seqs \(seqs)")
        host.ack(screen, serial: dismiss.serial)
        daemon.advanceTime(by: DaemonConfiguration.Defaults.ackTimeoutMilliseconds * 3)
        let later = host.readBodies()
        #expect(!later.contains { if case .error(let m) = $0 { m.code == .ackTimeout } else { false } },
                "never an ACK_TIMEOUT for a serial that was not sent: \(later.map(\.name))")
        #expect(log.lines.contains { $0.contains("over its host's maximum frame size") }, "and the daemon logs it")
        #expect(daemon.daemon.invariantViolations().isEmpty)
    }

    @Test func aTreeOverTheClientsFrameSizeIsAnsweredWithAnError() throws {
        let daemon = try EmbeddedDaemonTests.deepStack { $0.exitWhenAppFinishes = false }
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let root = try #require(answer.compactMap { if case .place(let m) = $0 { m.screenID } else { nil } }.first)
        EmbeddedDaemonTests.press(1, on: root, from: host)
        _ = host.readBodies()
        let client = daemon.connect()
        _ = client.hello(role: .debug, name: "small-flowctl", maxFrameSize: 4_096)
        let seq = client.send(.getTree(Flowd_V1_GetTree()))
        let frames = client.readFrames()
        let reply = try #require(frames.first { $0.replyTo == seq }, "GetTree is answered; got \(frames.map { $0.body?.name ?? "?" })")
        guard case .error(let error) = reply.body else {
            Issue.record("expected an Error, got \(reply.body?.name ?? "nothing")")
            return
        }
        #expect(error.code == .limitExceeded && !error.fatal)
        #expect(error.message.contains("Tree") && error.message.contains("4096"), "names the answer and the limit: \(error.message)")
        #expect(!client.isClosed, "the connection goes on")
    }

    @Test func anUnknownKindErrorForAThousandKindsArrivesAtAFourKiBHost() throws {
        let log = LogLines()
        let (daemon, _, _) = try Self.notes(log: log)
        let kinds = (0..<1_000).map { String(format: "unknown-kind-%04d", $0) }
        let host = daemon.connect()
        let answer = host.hello(role: .screenHost, name: "many-kinds", provides: kinds, maxFrameSize: 4_096)
        let error = try #require(answer.compactMap { if case .error(let m) = $0 { m } else { nil } }.first,
                                 "UNKNOWN_KIND arrives; got \(answer.map(\.name))")
        #expect(error.code == .unknownKind)
        #expect(error.message.contains("unknown-kind-0000"))
        #expect(error.message.contains("984 more"), "says how many were left out: \(error.message)")
        #expect(!log.lines.isEmpty)
        #expect(log.lines.allSatisfy { $0.utf8.count < 4_096 }, "no log line quotes the whole list")
    }

    @Test func anEventOverTheWatchersFrameSizeIsCountedAsLagged() throws {
        let log = LogLines()
        let (daemon, host, screen) = try Self.notes(log: log)
        let watcher = daemon.connect()
        _ = watcher.hello(role: .debug, name: "small-watcher", maxFrameSize: 4_096)
        var subscribe = Flowd_V1_Subscribe()
        subscribe.payloads = true
        watcher.send(.subscribe(subscribe))
        _ = watcher.readBodies()
        Self.setText(String(repeating: "e", count: 5_000), on: screen, from: host)
        let bodies = watcher.readBodies()
        let lagged = try #require(bodies.compactMap { if case .lagged(let m) = $0 { m } else { nil } }.first,
                                  "the event that did not fit is counted; got \(bodies.map(\.name))")
        #expect(lagged.dropped >= 1)
        #expect(log.lines.contains { $0.contains("over a watcher's maximum frame size") }, "and the daemon logs it")
    }

    @Test func aWatcherThatCatchesUpIsToldItLaggedWithoutWaitingForTheNextEvent() throws {
        let log = LogLines()
        let (daemon, host, screen) = try Self.notes(log: log)
        let watcher = daemon.connect()
        _ = watcher.hello(role: .debug, name: "slow-watcher")
        var subscribe = Flowd_V1_Subscribe()
        subscribe.payloads = true
        watcher.send(.subscribe(subscribe))
        _ = watcher.readBodies()
        watcher.reads = false
        // Each update's events carry 8 KB of payload: past the 256 KiB lag limit in well under 100.
        for round in 0..<100 {
            Self.setText(String(repeating: Character(String(round % 10)), count: 8_000), on: screen, from: host)
            for body in host.readBodies() { if case .update(let m) = body { host.ack(m.screenID, serial: m.serial) } }
        }
        watcher.reads = true
        let bodies = watcher.readBodies()
        let lagged = try #require(bodies.compactMap { if case .lagged(let m) = $0 { m } else { nil } }.last,
                                  "the watcher drained its socket: it is told at once, not with the next event")
        #expect(lagged.dropped > 0)
        let lastEvent: UInt64 = bodies.compactMap { if case .event(let m) = $0 { m.seq } else { nil } }.max() ?? 0
        #expect(lagged.nextSeq > lastEvent)
    }
}
