import FlowApp
import FlowJournal
import FlowKit
import FlowKitWire
import FlowWire
import Foundation

/// The journal's inputs as a timeline that can be stepped through (`flowctl history`, `flowctl at`, the
/// inspector's slider; docs/flowctl.md, "History"). A scratch runtime of the app, never the live one,
/// replays the records a restore would — the same `JournalReplay` steps, the same placement checks —
/// and after each input the moment is kept: the flow tree, the navigation model, each screen's state,
/// what the input changed, and the events a recording of it holds. Asking again only replays the
/// records that came since; a journal compacted since (it starts from another record) is replayed
/// from its checkpoint. Stepping is a lookup: measured in docs/performance.md ("history").
///
/// A final class with one owner (`DebugSurface`): it keeps the scratch runtime between requests.
final class Timeline {
    /// One moment: the app right after input `index` (0: the start).
    struct Moment {
        /// The tree and the screens, as a serialized `Flowd_V1_Moment` (a moment is read rarely and
        /// kept for long: its bytes take a fraction of the messages' memory).
        var view: [UInt8]
        /// The input that led here (nil for moment 0).
        var input: Flowd_V1_HistoryInput?
        /// How many records rebuild this moment: those before the next input's.
        var recordEnd: Int
    }

    private let app: FlowApp.App
    private var runtime = FlowRuntime()
    private var replay = JournalReplay()
    private var ledger = Ledger()
    private var screens = MomentScreens()
    private var flowTypes: [FlowID: String] = [:]
    /// When the inputs being replayed were received (the journal's last time record; 0: not known).
    private var receivedAt: Int64 = 0
    /// The moments so far, 0 first.
    private(set) var moments: [Moment] = []
    /// The records replayed so far.
    private(set) var records: [Journal.Record] = []
    /// The persistence's mark of the records last caught up with (nil: none yet).
    var caughtUpTo: Persistence.RecordsMark?
    /// Why the replay stopped before the end (the flows diverged from the journal); nil while it holds.
    private(set) var stopped: String?

    init(app: FlowApp.App) { self.app = app }

    /// Inputs replayed: moments 1 to `count`.
    var count: Int { max(0, moments.count - 1) }
    /// Whether moment 0 is a checkpoint of the user's place (the journal was compacted).
    var startsFromCheckpoint: Bool { records.first?.kind == Checkpoint.kind }

    /// The records being caught up with (the last `current` given), until they are all replayed.
    private var target: [Journal.Record] = []
    /// Whether records of the last `current` given are still to be replayed (a slice ran out of time).
    var isCatchingUp: Bool { stopped == nil && records.count < target.count }
    /// Which numbering of the moments this is: it changes whenever the replay starts over (the
    /// journal was compacted or cleared), so that a client asking in several steps can tell moment N
    /// of one numbering from moment N of the next.
    private(set) var epoch: UInt64 = 1

    /// Replays what `current` (the records that rebuild the app now, oldest first) holds beyond what was
    /// replayed, for at most `budget` nanoseconds of the caller's loop (a first question on a long
    /// history would hold it for long: the rest waits for `resume`); true once every record is
    /// replayed. Starts over when `current` does not begin with the records replayed so far (the
    /// journal was compacted).
    @discardableResult
    func catchUp(_ current: [Journal.Record], budget: UInt64 = .max) -> Bool {
        target = current
        return resume(budget: budget)
    }

    /// Goes on replaying toward the records last given, for at most `budget` nanoseconds; true once
    /// every one is replayed (or the replay stopped).
    @discardableResult
    func resume(budget: UInt64 = .max) -> Bool {
        let current = target
        let deadline = budget == .max ? UInt64.max : DispatchTime.now().uptimeNanoseconds &+ budget
        // The same records: a batch's check is added to its last record once it is committed.
        func same(_ a: Journal.Record, _ b: Journal.Record) -> Bool { a.kind == b.kind && a.key == b.key && a.body == b.body }
        if current.count < records.count || (!records.isEmpty && !same(current[0], records[0]))
            || (!records.isEmpty && !same(current[records.count - 1], records[records.count - 1])) {
            startOver()
        }
        if moments.isEmpty, stopped == nil {
            let first = current.first
            screens.reset()
            switch replay.begin(app, first: first, ledger: &ledger, into: runtime) {
            case .failure(let divergence):
                stopped = "the start does not rebuild: \(divergence)"
                records = current
                return true
            case .success(let consumed):
                if consumed, let first { records.append(first) }
            }
            var start = Flowd_V1_HistoryInput()
            absorbCommands(input: &start)
            moments.append(capture(input: nil))
        }
        guard stopped == nil else {
            records = current
            return true
        }
        var replayed = 0
        while records.count < current.count {
            // The clock is read every 32 records (a record takes microseconds), and a slice replays at
            // least 32: each one makes progress.
            if replayed > 0, replayed % 32 == 0, DispatchTime.now().uptimeNanoseconds > deadline { return false }
            replayed += 1
            let record = current[records.count]
            let isInput = record.kind < DaemonJournal.placeKind
            if record.kind == InputTimes.kind { receivedAt = InputTimes.nanoseconds(in: record.body) }
            let described = isInput ? describe(record, index: UInt64(moments.count), time: receivedAt) : nil
            records.append(record)
            if case .failure(let divergence) = replay.step(record, ledger: &ledger, into: runtime) {
                stopped = "input \(moments.count) does not replay as journaled: \(divergence)"
                records = current
                return true
            }
            guard var input = described else {
                moments[moments.count - 1].recordEnd = records.count
                continue
            }
            input.change = absorbCommands(input: &input)
            moments.append(capture(input: input))
        }
        return true
    }

    /// The records that rebuild moment `index` (one of `moments`).
    func startRecords(at index: Int) -> [Journal.Record] { Array(records[..<moments[index].recordEnd]) }

    private func startOver() {
        runtime = FlowRuntime()
        replay = JournalReplay()
        ledger = Ledger()
        screens = MomentScreens()
        flowTypes = [:]
        receivedAt = 0
        moments = []
        records = []
        stopped = nil
        epoch += 1
    }

    // MARK: One input

    /// The input `record` holds, described before it is applied (its screen is still placed).
    private func describe(_ record: Journal.Record, index: UInt64, time: Int64) -> Flowd_V1_HistoryInput {
        var entry = Flowd_V1_HistoryInput()
        entry.index = index
        entry.key = record.key
        entry.timeUnixNanos = time
        guard let input = try? FlowInput(kind: record.kind, body: record.body) else {
            entry.kind = "kind \(record.kind)"
            entry.text = "an input of kind \(record.kind) that does not decode"
            return entry
        }
        var event = Flowd_V1_Event()
        func on(_ screen: ScreenID) {
            entry.screenID = screen.rawValue
            entry.screenKind = screens.kind(of: screen)
            event.screenID = screen.rawValue
            event.name = entry.screenKind
            if let owner = runtime.owner(of: screen) { flow(owner) }
        }
        func flow(_ id: FlowID) {
            entry.flowID = id.rawValue
            entry.flowType = flowTypes[id] ?? ""
            event.flowID = id.rawValue
        }
        var what: String
        switch input {
        case .output(let screen, let payload):
            entry.kind = "output"
            on(screen)
            let json = runtime.outputJSON(screen: screen, payload: payload)
            entry.payload = json.map { .json($0) } ?? Flowd_V1_Payload(contentType: "application/octet-stream", data: payload)
            what = "output " + (json.map { String(decoding: $0.prefix(200), as: UTF8.self) } ?? "(\(payload.count) bytes)")
            event.kind = .output
        case .userNavigation(let navigation, let screen):
            entry.kind = "navigation"
            on(screen)
            entry.payload = EventPayloads.navigation(Flowd_V1_UserNavigation(navigation, screen: screen))
            what = "\(navigation)"
            event.kind = .userNavigation
        case .dismissalCompleted(let screen, let outcome):
            entry.kind = "dismissal completed"
            on(screen)
            what = "dismissal \(outcome.rawValue)"
        case .screenLost(let screen):
            entry.kind = "screen lost"
            on(screen)
            what = "screen lost"
            event.kind = .screenLost
        case .terminate(let id, let animated):
            entry.kind = "terminate"
            flow(id)
            var request = Flowd_V1_TerminateFlow()
            request.flowID = id.rawValue
            request.animated = animated
            entry.payload = EventPayloads.terminate(request)
            what = "terminate"
            event.kind = .injected
        case .terminateAll:
            entry.kind = "terminate all"
            what = "terminate all"
            event.kind = .shutdown
        case .timerFired(let request):
            entry.kind = "timer fired"
            what = "timer \(request.rawValue) fired"
        case .workSucceeded(let request, let payload):
            entry.kind = "work succeeded"
            what = "work \(request.rawValue) succeeded (\(payload.count) bytes)"
        case .workFailed(let request, let message):
            entry.kind = "work failed"
            what = "work \(request.rawValue) failed: \(message)"
        case .timerStarted(let request, let deadline):
            entry.kind = "timer started"
            // The deadline is wall-clock milliseconds since the epoch: said as the wait from the input's time.
            let due = time > 0 ? "due \(Int64(deadline) - time / 1_000_000) ms later" : "due at \(deadline) ms since the epoch"
            what = "timer \(request.rawValue) started, \(due)"
        case .openLink(let link):
            entry.kind = "open link"
            entry.payload = EventPayloads.link("\(link)")
            what = "open \(link)"
            event.kind = .linkOpened
        case .displaysChanged(let displays):
            entry.kind = "displays"
            what = displays.isEmpty ? "no display provided" : "displays " + displays.map(\.description).joined(separator: ", ")
        }
        if entry.screenID != 0 { what += " on \(entry.screenKind) screen \(entry.screenID)" }
        if entry.flowID != 0 { what += " (flow \(entry.flowID) \(entry.flowType))" }
        // One line: a work failure's message or a link may be long.
        entry.text = what.count > 400 ? String(what.prefix(399)) + "…" : what
        if event.kind != .unspecified {
            if entry.hasPayload { event.payload = entry.payload }
            event.text = what
            entry.events = [event]
        }
        return entry
    }

    /// Folds the commands the last step made into the screens, and appends them to `input`'s events
    /// as a recording holds them; returns what changed.
    @discardableResult
    private func absorbCommands(input: inout Flowd_V1_HistoryInput) -> Flowd_V1_MomentChange {
        var change = Flowd_V1_MomentChange()
        for command in ledger.takeCommands() {
            let event = screens.apply(command, runtime: runtime)
            switch command {
            case .place: change.placed.append(command.screen.rawValue)
            case .update: change.updated.append(command.screen.rawValue)
            case .placementChanged: change.moved.append(command.screen.rawValue)
            case .dismiss: change.dismissed.append(command.screen.rawValue)
            }
            input.events.append(event)
        }
        return change
    }

    /// The moment the runtime is at now.
    private func capture(input: Flowd_V1_HistoryInput?) -> Moment {
        let snapshot = runtime.debugTree()
        let before = flowTypes
        flowTypes = Dictionary(uniqueKeysWithValues: snapshot.flows.map { ($0.id, $0.typeName) })
        var input = input
        if input != nil {
            input!.change.flowsStarted = flowTypes.keys.filter { before[$0] == nil }.map(\.rawValue).sorted()
            input!.change.flowsEnded = before.keys.filter { flowTypes[$0] == nil }.map(\.rawValue).sorted()
        }
        var tree = Flowd_V1_Tree()
        tree.app = app.name
        if let root = snapshot.wireRootFlow() { tree.rootFlow = root }
        let serials = screens
        let screenInfo = { (id: ScreenID, info: DebugTree.NodeInfo) -> Flowd_V1_ScreenInfo in
            var screen = Flowd_V1_ScreenInfo(flowsView: info)
            screen.lastSerial = serials.serial(of: id)
            screen.ackedSerial = screen.lastSerial
            return screen
        }
        tree.window = snapshot.wireWindow(screen: screenInfo)
        tree.otherWindows = snapshot.wireOtherWindows(screen: screenInfo)
        tree.setPlaces(of: runtime)
        var view = Flowd_V1_Moment()
        view.tree = tree
        view.screens = screens.live(owners: runtime)
        return Moment(view: (try? view.serializedBytes()) ?? [], input: input, recordEnd: records.count)
    }
}

/// The placement check of the timeline's replay, and the commands of the step in progress.
private struct Ledger: ReplayLedger {
    private var check = PlacementCheck()
    private var commands: [ScreenCommand] = []
    var storedCheck: Int64 { check.stored }
    mutating func observe(_ command: ScreenCommand) {
        check.add(command)
        commands.append(command)
    }
    mutating func restored(_ checkpoint: Checkpoint) { check = PlacementCheck(stored: checkpoint.check) }
    mutating func takeCommands() -> [ScreenCommand] {
        defer { commands.removeAll(keepingCapacity: true) }
        return commands
    }
}
