import FlowApp
import Foundation
import FlowJournal
import FlowKit
import Logging

/// What keeps the app across restarts of the daemon, as one part: the journal of inputs (nil:
/// `--no-state`), the keys of the latest inputs applied (a repeat is dropped), how many inputs the
/// restore at start replayed — and the one entry every input that changes the app
/// takes, `feed`: applied to the runtime, then journaled. It opens the journal, and moves a bad one
/// aside for a fresh one (docs/restore.md, "Bad state files"); what it finds it returns as notices.
/// It restores the app at start: `JournalReplay` replays the journal into a new runtime, and the
/// core places the screens that come back (`AppCore+Restore.swift`).
struct Persistence {
    /// Where the user was in a journal this version could not replay, to be opened again.
    struct CarriedPlace: Equatable {
        /// The place, as a link's text.
        var link: String
        /// The app version that wrote the journal.
        var version: String
        /// Why the journal did not replay.
        var why: String
        /// What the journal's last stop left for a next version (nil: it ends without it).
        var state: CarriedState?
        /// Why no state was carried, when `state` is nil.
        var stateMissing = ""
        /// Whether this is a planned upgrade (another version's journal, kept in the archive slot) rather
        /// than a journal that did not replay.
        var upgrade = false
    }

    /// The archive slot of an upgrade, `PATH.previous`, while it exists (`Stats.journal_archive`).
    private(set) var journalArchive = ""
    /// What the start carried from another version's journal, in a few words (`Stats.carried_over`).
    var carriedOver = ""
    /// What the start did not carry from another version's journal, each with why (the `not carried:`
    /// part of its line), for `AppTester`.
    var notCarried: [String] = []

    /// The place of a journal refused at start, until the core opens it (`takeCarriedPlace`).
    private var carried: CarriedPlace?
    /// The place opened at start from a journal that did not replay, as `Stats` shows it.
    private(set) var placeCarriedOver = ""
    /// The journal (nil: none is kept).
    private(set) var journal: DaemonJournal?
    /// Keys of the latest inputs applied.
    private var appliedKeys = AppliedKeys()
    /// A `Pong` that waits until the inputs before its `Ping` are committed (docs/protocol.md §10).
    struct HeldPong {
        let connection: UInt64
        let seq: UInt64
        let nonce: UInt64
    }

    /// Pongs waiting for a commit: this iteration's, or every one while the journal's writes fail.
    private var heldPongs: [HeldPong] = []
    /// The most pongs held (one per connection would do; a client that pings in a loop while the
    /// disk is full gets the rest refused).
    static let maxHeldPongs = 4_096

    /// Holds `pong` until what came before it is committed, unless it is already: returns false when
    /// it may go now (no journal, nothing uncommitted), and throws when too many wait.
    mutating func holdUntilDurable(_ pong: HeldPong) throws(HeldPongsFull) -> Bool {
        guard let journal, journal.hasUncommitted || journal.isFailing else { return false }
        guard heldPongs.count < Self.maxHeldPongs else { throw HeldPongsFull() }
        heldPongs.append(pong)
        return true
    }

    /// The held pongs whose inputs are committed now (none while the writes fail).
    mutating func takeDurablePongs() -> [HeldPong] {
        guard !heldPongs.isEmpty, journal.map({ !$0.hasUncommitted && !$0.isFailing }) ?? true else { return [] }
        defer { heldPongs.removeAll() }
        return heldPongs
    }

    /// Whether inputs or saved states are being refused (`refusal`), for one log line per episode.
    private var refusingInputs = false, refusingSaves = false
    /// Inputs replayed from the journal at start.
    private(set) var restoredInputs = 0
    /// When the journal is compacted to a checkpoint, and how often it was.
    private(set) var compaction: Compaction
    /// Without a journal: the inputs since the app's start, for a recording's starting state (nil once
    /// a journal was opened, or closed while the app ran: then the history is not whole).
    private var history: InputHistory? = InputHistory()

    /// Bytes of records that may wait in memory while the journal's writes fail (`DaemonJournal.refusal`).
    private let backlogLimit: Int

    init(compactAfterInputs: Int = DaemonConfiguration.Defaults.compactAfterInputs,
         backlogLimit: Int = DaemonConfiguration.Defaults.journalBacklogLimit) {
        compaction = Compaction(afterInputs: compactAfterInputs)
        self.backlogLimit = backlogLimit
    }

    /// Opens the journal at `path` for `app`, whose name and version are its identity. A journal
    /// that cannot be replayed — another app's, version's or schema's, damaged, not a journal — is
    /// moved aside, said in the notices, and a fresh one starts; nothing is deleted. Throws when the
    /// file cannot be used at all, a full disk included (exit 74), or another process holds it (exit
    /// 75): then the file is not known to be the wrong one and stays where it is.
    mutating func open(at path: String, for app: FlowApp.App, logger: Logger) throws(DaemonError) -> [Notice] {
        var notices: [Notice] = []
        do {
            journal = try journal(at: path, for: app, logger: logger)
        } catch {
            let refused = error
            switch error {
            case .otherApp, .otherSchema, .notAJournal, .corrupt: break  // moved aside below
            case .otherAppVersion(_, let found, _):
                // A planned upgrade: the old journal goes to the one archive slot, replaced by the next.
                return try upgrade(at: path, from: found, for: app, logger: logger)
            case .diskFull(let path): throw .state(.cannotOpen(path: path, reason: "its disk is full; free space"))
            case .fileTooLarge(let path):
                throw .state(.cannotOpen(path: path, reason: "it is at the file size limit of this process (ulimit -f); raise the limit"))
            default: throw .state(error)
            }
            let kept: String
            do {
                kept = try Journal.moveAside(path)
            } catch {
                let why = if case .cannotOpen(_, let why) = error { why } else { "\(error)" }
                throw .state(.cannotOpen(path: path, reason: "\(refused); it cannot be moved aside to start a fresh one: \(why)"))
            }
            notices.append(Notice(.error, "\(refused); it was moved aside to \(kept) and the app starts fresh; \(refused.advice(kept: kept, app: app.name))",
                                  ["kept": "\(kept)"]))
            do {
                journal = try journal(at: path, for: app, logger: logger)
            } catch {
                throw .state(.cannotOpen(path: path, reason: "\(refused); it was moved aside to \(kept), but a fresh journal cannot be opened: \(error)"))
            }
        }
        history = nil
        notices.append(Notice(.info, "journal open", ["path": "\(path)"]))
        if FileManager.default.fileExists(atPath: "\(path).previous") { journalArchive = "\(path).previous" }
        if let torn = journal?.journal.tornBytes, torn > 0, journal?.journal.tornBytesAreZeros == true {
            notices.append(Notice(.info, """
                the journal ends in \(torn) zero bytes after its last batch (space allocated ahead for commits when \
                flowd ended without closing it): the first write cuts them away
                """, ["path": "\(path)"]))
        } else if let torn = journal?.journal.tornBytes, torn > 0 {
            notices.append(Notice(.notice, """
                the journal ends in a torn write (a crash or power cut while appending): the inputs before it are \
                restored, and the first write cuts its \(torn) bytes away
                """, ["path": "\(path)"]))
        }
        return notices
    }

    /// Opens a fresh journal at `path` for `app` after keeping the one of version `found` in the archive
    /// slot: what its last stop left for a next version is carried (`takeCarriedPlace`). The upgrade is
    /// said once the app has started (`AppCore.startRuntime`), in one line.
    private mutating func upgrade(at path: String, from found: String, for app: FlowApp.App, logger: Logger) throws(DaemonError) -> [Notice] {
        var place = Self.lastPlace(at: path, version: found, why: "the journal was written by version \(found) of the app, this is \(app.version)")
        place?.upgrade = true
        let kept: String
        do {
            kept = try Journal.archive(path)
        } catch {
            let why = if case .cannotOpen(_, let why) = error { why } else { "\(error)" }
            throw .state(.cannotOpen(path: path, reason: "it was written by version \(found) of the app, this is \(app.version); it cannot be kept aside to start a fresh one: \(why)"))
        }
        journalArchive = kept
        carried = place ?? CarriedPlace(link: "", version: found, why: "", stateMissing: "the journal of version \(found) names no place and ends without a stop",
                                        upgrade: true)
        do {
            journal = try journal(at: path, for: app, logger: logger)
        } catch {
            throw .state(.cannotOpen(path: path, reason: "it was written by version \(found) of the app and kept as \(kept), but a fresh journal cannot be opened: \(error)"))
        }
        history = nil
        return [Notice(.info, "journal open", ["path": "\(path)"])]
    }

    /// The journal kept did not replay at start (`why`): it is moved aside and a fresh one opened at
    /// its path for `app`; `advice` says what to do with the one kept, given where it went. Returns
    /// what to tell (a `RESTORED` event says the app starts fresh).
    mutating func startOver(_ app: FlowApp.App, why: String, advice: (String) -> String, logger: Logger) -> Notice {
        let path = journal?.journal.path
        close()
        var notice = Notice(.error, "\(why); the app starts fresh without a journal")
        if let path {
            do {
                let kept = try Journal.moveAside(path)
                notice = Notice(.error, "\(why); it was moved aside to \(kept) and the app starts fresh; \(advice(kept))", ["kept": "\(kept)"])
                journal = try journal(at: path, for: app, logger: logger)
            } catch {
                notice = Notice(.error, "\(why); \(error); the app starts fresh without a journal", ["error": "\(error)"])
            }
        }
        // The app starts fresh: without a journal, its inputs are kept from here.
        if journal == nil { history = InputHistory() }
        notice.event = .init(kind: .restored, text: "\(why); it was moved aside and the app starts fresh")
        return notice
    }

    /// The last place journaled in the journal at `path` (any version's) and what its last stop left for
    /// a next version (a `CarriedState`, when it is the journal's last record: after a crash, or when
    /// inputs followed, there is none), if either names anything.
    private static func lastPlace(at path: String, version: String, why: String) -> CarriedPlace? {
        let found: (Journal.Identity, [Int64: Journal.Record], Journal.Record?)
        do {
            found = try Journal.lastRecords(ofKinds: [DaemonJournal.placeKind], at: path)
        } catch {
            return CarriedPlace(link: "", version: version, why: why, stateMissing: "its journal cannot be read (\(error))")
        }
        let link = found.1[DaemonJournal.placeKind].map { String(decoding: $0.body, as: UTF8.self) } ?? ""
        var place = CarriedPlace(link: link, version: version, why: why)
        if let last = found.2, last.kind == CarriedState.kind {
            do throws(CarriedState.Unreadable) {
                let state = try CarriedState(decoding: last.body)
                place.state = state
                if !state.place.isEmpty { place.link = state.place }
            } catch {
                place.stateMissing = "what its last stop left does not read (\(error))"
            }
        } else {
            place.stateMissing = "the journal of version \(version) does not end with a stop (a crash, or a flowd that kept no mementos), so only the place is carried"
        }
        return place.link.isEmpty && place.state == nil ? nil : place
    }

    /// The place of a journal refused at start, taken (the core opens it once the app started).
    mutating func takeCarriedPlace() -> CarriedPlace? {
        defer { carried = nil }
        return carried
    }

    /// The carried place `link` is open again (`Stats.place_carried_over`).
    mutating func carriedOver(_ link: String, from version: String) {
        placeCarriedOver = "\(link) (version \(version))"
    }

    /// Starts the fresh journal from `records`, what an upgrade carried (`CarriedState` first): the
    /// restore that follows replays them as any journal. Throws the write's error.
    mutating func begin(with records: [Journal.Record]) throws(JournalError) {
        guard journal != nil else { return }
        try journal?.begin(with: records)
    }

    /// The journal at `path` for `app`.
    private func journal(at path: String, for app: FlowApp.App, logger: Logger) throws(JournalError) -> DaemonJournal {
        DaemonJournal(journal: try Journal(path: path, identity: Journal.Identity(app: app.name, appVersion: app.version), mapsAhead: true),
                      backlogLimit: backlogLimit, logger: logger)
    }

    /// What the journal holds for a start.
    enum Restore {
        /// Nothing to replay (no journal, or an empty one): the app starts afresh.
        case nothing
        /// The inputs replayed into the runtime; the screens to place again and the root flow's end
        /// during the replay, if it ended.
        case restored(inputs: Int, screens: [PlaceCommand], rootOutcome: RootOutcome?)
        /// The journal does not replay (`why`): it must be moved aside (`startOver`); `advice` says
        /// what to do with it, given where it went.
        case refused(why: String, advice: (String) -> String)
    }

    /// Replays the journal into `runtime`, which has just started `app`'s root flow from nothing
    /// (`JournalReplay`: nothing delivered, nothing started). On `.restored` the replayed inputs'
    /// keys are remembered; the runtime then holds the restored flows.
    mutating func restore(_ app: FlowApp.App, into runtime: FlowRuntime) -> Restore {
        guard var journal else { return .nothing }
        do {
            guard try journal.journal.count() > 0 else { return .nothing }
        } catch {
            // Damaged where the count reads: not an empty journal to append to.
            return .refused(why: "\(error)", advice: { error.advice(kept: $0, app: app.name) })
        }
        var replay = JournalReplay()
        self.journal = nil
        let outcome = replay.replay(app, &journal, into: runtime)
        self.journal = journal
        if case .restored = outcome {} else {
            carried = Self.lastPlace(at: journal.journal.path, version: app.version, why: "it does not replay")
        }
        switch outcome {
        case .restored(let inputs, let screens):
            restoredInputs = inputs
            self.journal?.restored(place: replay.lastPlace)
            self.journal?.restored(inputs: inputs, savedStates: replay.savedStates)
            appliedKeys = replay.appliedKeys
            return .restored(inputs: inputs, screens: screens, rootOutcome: replay.screens.rootOutcome)
        case .diverged(let index, let reason):
            return .refused(why: "the journal does not replay at input \(index) (\(reason))", advice: { _ in
                "the flows decide differently from the same inputs: change the app's version whenever its flows change (docs/flows.md, Determinism)"
            })
        case .unreadable(let index, let error):
            return .refused(why: "\(error) (found at input \(index))", advice: { error.advice(kept: $0, app: app.name) })
        }
    }

    /// Whether an input with `key` was applied already (a host sent it again, not knowing whether
    /// it arrived: docs/protocol.md §20).
    func hasApplied(_ key: UInt64) -> Bool { appliedKeys.contains(key) }

    /// Feeds one input to `runtime` and, once accepted, journals it with the time it was received (`time`,
    /// milliseconds since the Unix epoch): every input that changes the app
    /// enters here. Returns what an `.openLink` opened. Throws, journaling nothing, when the runtime
    /// refuses it.
    mutating func feed(_ input: FlowInput, key: UInt64, at time: @autoclosure () -> UInt64, into runtime: FlowRuntime) throws(FlowKitError) -> OpenedLink? {
        let opened = try runtime.apply(input)
        record(input, key: key, at: time())
        return opened
    }

    /// `feed` of a host's output, the most frequent input: the runtime's `receiveOutput` itself, so
    /// that no `OpenedLink?` is made and destroyed for it (~0.1 k instructions per output, callgrind).
    mutating func feedOutput(of screen: ScreenID, payload: Data, key: UInt64, at time: @autoclosure () -> UInt64,
                             into runtime: FlowRuntime) throws(FlowKitError) {
        try runtime.receiveOutput(screen: screen, payload: payload)
        record(.output(screen, payload: payload), key: key, at: time())
    }

    /// Journals an input the runtime accepted (kept in memory without a journal) and marks its key applied.
    private mutating func record(_ input: FlowInput, key: UInt64, at time: UInt64) {
        appliedKeys.insert(key)
        if journal != nil {
            journal?.record(input, key: key, at: time)
        } else {
            history?.record(input, key: key, at: time)
        }
    }

    /// Journals what a host saved for `screen` (not an input: the replay hands it to the screen's place).
    mutating func recordSavedState(_ data: Data, for screen: ScreenID) {
        if journal != nil {
            journal?.recordSavedState(data, for: screen)
        } else {
            history?.recordSavedState(data, for: screen)
        }
    }

    /// The records that rebuild the app's state now, for a recording's start (docs/flowctl.md): the
    /// journal's with the ones not committed yet, or, without a journal, the inputs kept in memory
    /// since the app's start. Throws, saying why and what to do, when they cannot be had.
    func startRecords() throws(StartStateUnavailable) -> [Journal.Record] {
        if let journal {
            do {
                return try journal.journal.records() + journal.uncommitted
            } catch {
                throw StartStateUnavailable("its journal cannot be read (\(error)); record from a daemon whose journal reads")
            }
        }
        guard let history else {
            throw StartStateUnavailable("its journal was closed while the app ran, so the inputs since the app's start are not all known; restart flowd to record")
        }
        guard !history.overflowed else {
            throw StartStateUnavailable("""
                it runs with --no-state and has applied more than \(InputHistory.limit) inputs, more than it keeps in memory; \
                run flowd with a journal (without --no-state: it is compacted to the user's place), or restart it and record sooner
                """)
        }
        return history.records
    }

    /// What identifies the records `startRecords()` gives now: equal marks, equal records.
    struct RecordsMark: Equatable {
        var journal: Int?
        var history: Int?
    }

    /// The mark of the records `startRecords()` gives now.
    var recordsMark: RecordsMark {
        RecordsMark(journal: journal?.mark, history: history.map { $0.overflowed ? -1 : $0.records.count })
    }

    /// Closes the journal (waiting for a flush in flight) and keeps none.
    mutating func close() {
        journal?.drainSyncs()
        if journal != nil { history = nil }
        journal = nil
    }

    /// Adds a screen command the runtime made to the journal's placement check.
    mutating func observe(_ command: ScreenCommand) { journal?.observe(command) }

    /// Commits the loop iteration's inputs (once per iteration, before frames are written: what a
    /// host is told is journaled first), with the user's `place` when a screen moved; a failed write
    /// is tried again at `nextDeadline`.
    mutating func commit(now: UInt64, place: () -> String?) {
        guard journal != nil else { return }
        journal?.commit(now: now, place: place)
        journalFails = journal?.isFailing ?? false
        if !journalFails { refusingInputs = false }
    }

    /// Whether the journal's last write failed, as of the last commit: inputs may then be refused
    /// (`refusal`). A stored flag, read once per input.
    private(set) var journalFails = false

    /// Compacts the journal to a checkpoint of the user's place when it grew past the policy's count
    /// and nothing is in flight (`Compaction`); once per loop iteration, after the commit. Returns
    /// what to tell.
    mutating func compactIfDue(_ app: FlowApp.App, runtime: FlowRuntime, savedStates: @autoclosure () -> [ScreenID: Data]) -> Notice? {
        // Read in place: once per loop iteration, and due only once per `--compact-after` inputs.
        guard compaction.isDue(inputs: (journal?.held ?? 0) + (journal?.savedSinceCheckpoint ?? 0)), var journal else { return nil }
        self.journal = nil
        defer { self.journal = journal }
        return compaction.compact(&journal, runtime: runtime, app: app, appliedKeys: appliedKeys, savedStates: savedStates())
    }

    /// Compacts the journal to a checkpoint of the user's place now, whatever its input count
    /// (`Daemon.checkpointNow()`); returns what to tell, nil when none was tried (no journal, an
    /// uncommitted write, something in flight).
    mutating func compactNow(_ app: FlowApp.App, runtime: FlowRuntime, savedStates: [ScreenID: Data]) -> Notice? {
        guard var journal else { return nil }
        self.journal = nil
        defer { self.journal = journal }
        return compaction.compact(&journal, runtime: runtime, app: app, appliedKeys: appliedKeys, savedStates: savedStates)
    }

    /// The last commit, as the daemon stops: tried even before the next retry is due.
    mutating func commitBeforeExit(now: UInt64) { journal?.commitBeforeExit(now: now) }

    /// The daemon is shutting down: nothing more is journaled; `place` is where the user was.
    mutating func freeze(place: () -> String?, carried: () -> CarriedState?) { journal?.freeze(place: place, carried: carried) }

    /// The app ended because its root screen was lost: the journal is kept for the next start.
    mutating func keepForNextStart() { journal?.keepForNextStart() }

    /// Why an input, or a saved state of `savedBytes`, is refused now (nil: taken), and whether the
    /// refusals begin with it (then the daemon logs it once, not once per refusal). Inputs ask only
    /// while `journalFails`.
    mutating func refusal(savedBytes: Int = 0) -> (message: String, first: Bool)? {
        let saving = savedBytes > 0
        guard let message = journal?.refusal(savedBytes: savedBytes) else {
            if saving { refusingSaves = false } else { refusingInputs = false }
            return nil
        }
        defer { if saving { refusingSaves = true } else { refusingInputs = true } }
        return (message, saving ? !refusingSaves : !refusingInputs)
    }

    /// The app finished: the journal is cleared.
    mutating func finish() { journal?.finish() }

    /// The loop's deadline fired: the flush of what is committed is asked for when due.
    mutating func expire(now: UInt64) { journal?.syncIfDue(now: now) }

    /// When a failed write is tried again, or the commits not flushed yet are flushed.
    var nextDeadline: UInt64? {
        mutating get {
            var next = journal?.retryAt
            DeadlineFold.fold(journal?.syncDueAt, into: &next)
            return next
        }
    }
}

/// Too many pongs wait for the journal (`Persistence.maxHeldPongs`).
struct HeldPongsFull: Error {}

/// Why a daemon cannot give the state a recording would start from (`Persistence.startRecords`).
struct StartStateUnavailable: Error, CustomStringConvertible {
    /// The reason and what to do.
    var description: String

    init(_ description: String) { self.description = description }
}
