import DemoApps
import FlowApp
import FlowDaemon
import FlowDaemonTesting
import FlowJournal
import FlowKit
import FlowWire
import FlowdTestSupport
import Foundation
import Synchronization
import Testing

/// Counts how often a flow's work ran, across daemons (a restore's included).
final class WorkRuns: Sendable {
    private let count = Mutex(0)
    func increment() -> Int { count.withLock { $0 += 1; return $0 } }
    var value: Int { count.withLock { $0 } }
}

/// Holds work until the test opens it (a daemon then dies while the work runs).
final class WorkGate: Sendable {
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    init(open: Bool) { state.withLock { $0.open = open } }

    func pass() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let go = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiting.append(continuation)
                return false
            }
            if go { continuation.resume() }
        }
    }

    func open() {
        let waiting = state.withLock { state in
            state.open = true
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}

/// One item screen. Button 0 asks for a 1,000 ms timer that pushes an item "Fired"; button 1 runs
/// work (counted, held by the gate) whose result becomes the item's title; button 2 finishes.
final class TimedFlow: Flow {
    typealias RequiredContext = NavigationStack
    typealias Result = String
    static let milliseconds: UInt64 = 1_000

    let runs: WorkRuns
    let gate: WorkGate

    init(runs: WorkRuns, gate: WorkGate) {
        self.runs = runs
        self.gate = gate
    }

    func start(_ flow: FlowContext<TimedFlow>) {
        let item = flow.show(ItemScreen.self, CardState(title: "Item", buttons: ["Timer", "Work", "Finish"]))
        item.onOutput { [runs, gate] output in
            guard case .didPressButton(let index) = output else { return }
            switch index {
            case 0:
                flow.after(milliseconds: Self.milliseconds) {
                    flow.show(ItemScreen.self, CardState(title: "Fired", buttons: []), .pushed(in: flow.context))
                }
            case 1:
                flow.run {
                    let run = runs.increment()
                    await gate.pass()
                    return "Worked (run \(run))"
                } then: { result in
                    item.update(CardState(title: (try? result.get()) ?? "failed", buttons: ["Timer", "Work", "Finish"]))
                }
            default:
                flow.finish("done")
            }
        }
    }
}

/// The daemon answers the flows' requests (docs/flows.md, Determinism): timers on the loop's clock,
/// work off the loop, each answer fed and journaled like any input; a restore replays the answers
/// the journal holds and starts again only what was still outstanding.
@Suite("Daemon requests")
struct DaemonRequestTests {
    typealias Body = Flowd_V1_Envelope.OneOf_Body

    static func app(runs: WorkRuns, gate: WorkGate) -> App {
        App(name: "timed", screens: [ItemScreen.kind: .attached], placer: windowRoot.withNavigationEmbedding()) {
            TimedFlow(runs: runs, gate: gate)
        }
    }

    static func journalPath() -> String { makeTemporaryDirectory() + "/timed.journal" }

    static func daemon(_ path: String, runs: WorkRuns, gate: WorkGate, wallClock: UInt64 = EmbeddedDaemon.defaultWallClock) throws -> EmbeddedDaemon {
        try EmbeddedDaemon(app: app(runs: runs, gate: gate), statePath: path, wallClock: wallClock) { $0.exitWhenAppFinishes = false }
    }

    /// A host for the item screens, with every command acknowledged; returns it and the root's id.
    static func host(_ daemon: EmbeddedDaemon) -> (EmbeddedConnection, [Body]) {
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        return (host, answer)
    }

    static func titles(_ bodies: [Body]) -> [String] {
        bodies.compactMap { body in
            switch body {
            case .place(let place): (try? CardState(binaryPayload: place.state.data))?.title
            case .update(let update): (try? CardState(binaryPayload: update.state.data))?.title
            default: nil
            }
        }
    }

    /// The journal's inputs (the daemon must have crashed: it holds the lock).
    static func journaled(_ path: String) throws -> [FlowInput] {
        let journal = try Journal(path: path, identity: .init(app: "timed", appVersion: "1"))
        // Inputs only: not the times they were received (kind 67).
        return try journal.records().filter { $0.kind < 64 }.map { try FlowInput(kind: $0.kind, body: $0.body) }
    }

    static let firstTimer = RequestID(rawValue: 1)

    @Test func aTimerFiresOnTheManualClockAndItsStartAndFiringAreJournaled() throws {
        let path = Self.journalPath()
        let daemon = try Self.daemon(path, runs: WorkRuns(), gate: WorkGate(open: true))
        let (host, answer) = Self.host(daemon)
        let root = RestoreTests.places(answer)[0].screenID
        daemon.advanceTime(by: 250)
        EmbeddedDaemonTests.press(0, on: root, from: host)
        #expect(daemon.daemon.startedTimerCount == 1)
        #expect(host.readBodies().isEmpty, "nothing is placed before the timer fires")
        daemon.advanceTime(by: TimedFlow.milliseconds - 1)
        #expect(host.readBodies().isEmpty, "one millisecond early")
        daemon.advanceTime(by: 1)
        let fired = host.readBodies()
        #expect(Self.titles(fired) == ["Fired"])
        EmbeddedDaemonTests.ackAll(fired, on: host)
        #expect(daemon.daemon.startedTimerCount == 0)
        daemon.crash()
        let inputs = try Self.journaled(path)
        #expect(inputs.dropFirst() == [
            .timerStarted(Self.firstTimer, deadline: EmbeddedDaemon.defaultWallClock + 250 + TimedFlow.milliseconds),
            .timerFired(Self.firstTimer),
        ])
    }

    @Test(arguments: [(down: UInt64(100), wait: UInt64(500)), (down: 60_000, wait: 0)])
    func aTimerOutstandingWhenTheDaemonDiesStartsAgainForWhatIsLeftAndFiresOnce(down: UInt64, wait: UInt64) throws {
        let path = Self.journalPath()
        var daemon = try Self.daemon(path, runs: WorkRuns(), gate: WorkGate(open: true))
        var (host, answer) = Self.host(daemon)
        EmbeddedDaemonTests.press(0, on: RestoreTests.places(answer)[0].screenID, from: host)
        daemon.advanceTime(by: 400)
        daemon.crash()

        // A new daemon `down` ms of wall time later: the timer has 600 − down ms left.
        daemon = try Self.daemon(path, runs: WorkRuns(), gate: WorkGate(open: true), wallClock: daemon.wallClock + down)
        #expect(daemon.daemon.startedTimerCount == 1, "the restored daemon started the timer again")
        (host, answer) = Self.host(daemon)
        #expect(daemon.daemon.invariantViolations().isEmpty, "\(daemon.daemon.invariantViolations())")
        #expect(Self.titles(answer) == ["Item"], "only the root is re-placed")
        if wait > 0 {
            daemon.advanceTime(by: wait - 1)
            #expect(Self.titles(host.readBodies()).isEmpty, "one millisecond early")
        }
        daemon.advanceTime(by: wait > 0 ? 1 : 0)
        let fired = host.readBodies()
        #expect(Self.titles(fired) == ["Fired"])
        EmbeddedDaemonTests.ackAll(fired, on: host)
        daemon.advanceTime(by: 10 * TimedFlow.milliseconds)
        #expect(Self.titles(host.readBodies()).isEmpty, "it fires once")
        daemon.crash()
        let requests = try Self.journaled(path).filter { if case .output = $0 { false } else { true } }
        #expect(requests == [.timerStarted(Self.firstTimer, deadline: EmbeddedDaemon.defaultWallClock + TimedFlow.milliseconds), .timerFired(Self.firstTimer)],
                "the restart kept the journaled deadline")
    }

    @Test func aTimerThatFiredBeforeTheDaemonDiedIsReplayedAndDoesNotFireAgain() throws {
        let path = Self.journalPath()
        var daemon = try Self.daemon(path, runs: WorkRuns(), gate: WorkGate(open: true))
        var (host, answer) = Self.host(daemon)
        EmbeddedDaemonTests.press(0, on: RestoreTests.places(answer)[0].screenID, from: host)
        daemon.advanceTime(by: TimedFlow.milliseconds)
        EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
        let before = RestoreTests.shape(daemon)
        daemon.crash()

        daemon = try Self.daemon(path, runs: WorkRuns(), gate: WorkGate(open: true))
        #expect(daemon.daemon.startedTimerCount == 0)
        #expect(RestoreTests.shape(daemon) == before, "the journaled firing pushed the screen again")
        (host, answer) = Self.host(daemon)
        #expect(Self.titles(answer) == ["Item", "Fired"])
        daemon.advanceTime(by: 10 * TimedFlow.milliseconds)
        #expect(host.readBodies().isEmpty, "the timer does not fire twice")
        daemon.crash()
        #expect(try Self.journaled(path).filter { $0 == .timerFired(Self.firstTimer) }.count == 1)
    }

    @Test func workRunsOffTheLoopAndItsResultIsJournaledAndReplayedWithoutRunningAgain() throws {
        let path = Self.journalPath()
        let runs = WorkRuns()
        var daemon = try Self.daemon(path, runs: runs, gate: WorkGate(open: true))
        var (host, answer) = Self.host(daemon)
        EmbeddedDaemonTests.press(1, on: RestoreTests.places(answer)[0].screenID, from: host)
        #expect(daemon.runningWork == 1)
        #expect(host.readBodies().isEmpty, "the result enters only when the test takes it")
        #expect(daemon.waitForWork())
        let updated = host.readBodies()
        #expect(Self.titles(updated) == ["Worked (run 1)"])
        EmbeddedDaemonTests.ackAll(updated, on: host)
        daemon.crash()
        let inputs = try Self.journaled(path)
        #expect(inputs.dropFirst() == [.workSucceeded(RequestID(rawValue: 1), payload: Data(#""Worked (run 1)""#.utf8))])

        daemon = try Self.daemon(path, runs: runs, gate: WorkGate(open: true))
        #expect(daemon.runningWork == 0, "the journal holds the result: nothing runs again")
        (host, answer) = Self.host(daemon)
        #expect(Self.titles(answer) == ["Worked (run 1)"], "the replayed result is on the re-placed screen")
        #expect(runs.value == 1)
    }

    @Test func workRunningWhenTheDaemonDiesRunsAgainAfterTheRestoreAndAnswersOnce() throws {
        let path = Self.journalPath()
        let runs = WorkRuns()
        let gate = WorkGate(open: false)
        var daemon = try Self.daemon(path, runs: runs, gate: gate)
        var (host, answer) = Self.host(daemon)
        EmbeddedDaemonTests.press(1, on: RestoreTests.places(answer)[0].screenID, from: host)
        #expect(daemon.runningWork == 1)
        daemon.crash()

        daemon = try Self.daemon(path, runs: runs, gate: gate)
        #expect(daemon.runningWork == 1, "the restored daemon runs the work again")
        (host, answer) = Self.host(daemon)
        #expect(Self.titles(answer) == ["Item"])
        gate.open()
        #expect(daemon.waitForWork())
        let updated = host.readBodies()
        #expect(Self.titles(updated).count == 1 && Self.titles(updated)[0].hasPrefix("Worked (run "), "\(Self.titles(updated))")
        daemon.crash()
        let results = try Self.journaled(path).filter { if case .workSucceeded = $0 { true } else { false } }
        #expect(results.count == 1, "one answer, the restored daemon's: \(results)")
    }

    @Test func finishingOrShuttingDownDropsOutstandingRequests() throws {
        let gate = WorkGate(open: false)
        defer { gate.open() }
        for ending in ["finish", "shutdown"] {
            let daemon = try Self.daemon(Self.journalPath(), runs: WorkRuns(), gate: gate)
            let (host, answer) = Self.host(daemon)
            let root = RestoreTests.places(answer)[0].screenID
            EmbeddedDaemonTests.press(0, on: root, from: host)
            EmbeddedDaemonTests.press(1, on: root, from: host)
            #expect(daemon.daemon.startedTimerCount == 1 && daemon.runningWork == 1)
            if ending == "finish" { EmbeddedDaemonTests.press(2, on: root, from: host) } else { daemon.shutdown() }
            EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
            #expect(daemon.daemon.startedTimerCount == 0, "\(ending): the timer is dropped")
            #expect(daemon.runningWork == 0, "\(ending): the work is dropped")
            daemon.advanceTime(by: 10 * TimedFlow.milliseconds)
            #expect(Self.titles(host.readBodies()).isEmpty, "\(ending): nothing fires")
        }
    }

    @Test func aShutdownKeepsTheRequestsInTheJournalAndTheNextStartResumesThem() throws {
        let path = Self.journalPath()
        var daemon = try Self.daemon(path, runs: WorkRuns(), gate: WorkGate(open: true))
        var (host, answer) = Self.host(daemon)
        EmbeddedDaemonTests.press(0, on: RestoreTests.places(answer)[0].screenID, from: host)
        daemon.shutdown()
        EmbeddedDaemonTests.ackAll(host.readBodies(), on: host)
        daemon.crash()
        daemon = try Self.daemon(path, runs: WorkRuns(), gate: WorkGate(open: true))
        #expect(daemon.daemon.startedTimerCount == 1, "the shutdown's cancellation was not journaled")
        (host, answer) = Self.host(daemon)
        daemon.advanceTime(by: TimedFlow.milliseconds)
        #expect(Self.titles(host.readBodies()) == ["Fired"])
    }
}
