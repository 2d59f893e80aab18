import Dispatch
import Foundation
import FlowJournal
import FlowKit
import Logging

/// The daemon's side of the journal (docs/restore.md): the inputs of the current loop iteration,
/// appended as one batch at its end with the placement check they led to; flushes to the disk on a
/// queue of their own, so the loop never waits for one; and what happens when a write fails (the
/// inputs stay in memory and the commit is tried again a second later, so a disk that filled up and
/// is freed loses nothing while the daemon runs). A value inside `Persistence`: an input's record and
/// the iteration's commit are each one access to the daemon's state.
struct DaemonJournal {
    /// Whether inputs are journaled now.
    enum Mode: Equatable {
        /// Every input is recorded.
        case recording
        /// The daemon is shutting down: the journal keeps the state from before the shutdown, so the
        /// next start restores it (a stop is not an ending).
        case frozen
        /// The app finished and the journal was cleared: nothing is left to restore.
        case finished
    }

    let journal: Journal
    private(set) var mode: Mode = .recording
    /// The check of every screen command the runtime made since the app started.
    private(set) var check = PlacementCheck()
    /// Records not committed yet (this iteration's, or more while writes fail), encoded as they come.
    private var pending = EncodedBatch() {
        didSet { mark &+= 1 }
    }
    /// Inputs (kinds below 64) and saved states among `pending`, and the saved states' bytes.
    private var pendingInputs = 0, pendingSavedStates = 0, pendingSavedBytes = 0
    /// Changes whenever the records change (one added, committed, rewritten or cleared): equal marks,
    /// equal records, so a reader of `records()` (the timeline) reads the file again only when it changed.
    private(set) var mark = 0
    /// When the next try of a failed write is due (nil: writes do not fail). Read once per loop
    /// iteration, so a plain field apart from the error.
    private(set) var retryAt: UInt64?
    /// The first error of the writes failing now.
    private var failure: JournalError?
    /// Inputs committed by this process.
    private(set) var committed = 0
    /// Inputs the journal holds (what a restart replays): those restored, then committed, since its
    /// start or its checkpoint.
    private(set) var held = 0
    /// Saved states (`SaveState`) written since the journal's start or its checkpoint: they make the
    /// journal grow too, so a compaction counts them with the inputs.
    private(set) var savedSinceCheckpoint = 0
    /// Their bytes, committed or pending: bounded by `maxSavedBytesSinceCheckpoint`.
    private var savedBytesSinceCheckpoint = 0

    /// The most bytes of records that wait in memory while writes fail: past it inputs and saved
    /// states are refused (`refusal`), so a full disk cannot grow the daemon without bound.
    let backlogLimit: Int
    /// The most bytes of saved states the journal takes between checkpoints (2,048 of the largest,
    /// the default compaction's count): with compaction off or its checkpoints refused, a host saving
    /// in a loop cannot grow the journal without bound.
    static let maxSavedBytesSinceCheckpoint = 2_048 * 16 * 1024
    /// When the commits not flushed yet are flushed (the loop's clock, milliseconds; nil: none wait).
    private(set) var syncDueAt: UInt64?
    private let syncs = DispatchQueue(label: "flowd.journal.sync")
    private let logger: Logger

    /// When the last flush was asked for (the loop's clock, milliseconds).
    private var lastSyncAt: UInt64 = 0

    /// The record kind of the user's place (a link's text; empty: no link names it). Not an input:
    /// the replay skips it; a new version of the app reads the last one to open it again (docs/journal.md).
    static let placeKind: Int64 = 64
    /// The place the journal holds last ("": none, as in a new journal, so an app that opens no links
    /// never writes one).
    private var journaledPlace = ""
    /// Whether this iteration's commands may have moved the user (a screen placed, moved or dismissed):
    /// only then is the place asked for at the commit, so an output that updates a screen costs nothing more.
    private var mayHaveMoved = false

    /// What a power cut can take (a crash of the process takes nothing committed): a commit is
    /// flushed to the disk, off the loop, at most this long after it was made; at once when the last
    /// flush is as old, so a commit after a quiet second is flushed at once, and a stream of commits
    /// once a second. Bounded in time, not in commits: each `fdatasync` costs ~0.1 ms of a CPU
    /// whatever it carries, which a count bound paid 60 times a second under a relay's load
    /// (docs/performance.md, "Decisions").
    static let syncMilliseconds: UInt64 = 1_000
    /// How long to wait before trying a failed write again, in milliseconds.
    static let retryMilliseconds: UInt64 = 1_000

    init(journal: Journal, backlogLimit: Int = DaemonConfiguration.Defaults.journalBacklogLimit, logger: Logger) {
        self.journal = journal
        self.backlogLimit = backlogLimit
        self.logger = logger
    }

    /// The record kind of what a host saved for a screen (`SaveState`): the screen, then the bytes.
    /// Not an input: the replay gives it to the screen's place.
    static let savedStateKind: Int64 = 66

    /// The records not committed yet, oldest first (a recording's starting state ends with them).
    var uncommitted: [Journal.Record] { pending.records }

    /// Inputs waiting to be committed (input kinds are below 64).
    var pendingCount: Int { pendingInputs }
    /// Whether records wait to be committed (this iteration's, or more while writes fail).
    var hasUncommitted: Bool { !pending.isEmpty }
    /// Whether the last write failed (and the inputs since wait in memory).
    var isFailing: Bool { retryAt != nil }

    /// Records an input the runtime accepted, with the key its sender gave it, received at `time`
    /// (milliseconds since the Unix epoch; ignored unless recording). The clock is read for the
    /// iteration's first input only: its inputs arrived within the same iteration.
    mutating func record(_ input: FlowInput, key: UInt64 = 0, at time: @autoclosure () -> UInt64 = 0) {
        guard mode == .recording else { return }
        if !iterationStamped {
            iterationStamped = true
            if let stamp = times.stamp(time()) { pending.append(stamp) }
        }
        if let size = input.knownBodySize {
            pending.append(kind: input.journalKind, key: Int64(bitPattern: key), bodySize: size) { input.encodeBody(to: $0) }
        } else {
            pending.append(kind: input.journalKind, key: Int64(bitPattern: key)) { input.encodeBody(into: &$0) }
        }
        pendingInputs += 1
    }

    /// When the inputs were received: a time record before an iteration's first input whenever the
    /// millisecond changed.
    private var times = InputTimes()
    /// Whether this loop iteration's inputs have their time (reset at each commit).
    private var iterationStamped = false

    /// Records what a host saved for `screen` (ignored unless recording).
    mutating func recordSavedState(_ data: Data, for screen: ScreenID) {
        guard mode == .recording else { return }
        pending.append(kind: Self.savedStateKind, body: Self.savedStateBody(data, for: screen))
        pendingSavedStates += 1
        pendingSavedBytes += data.count
    }

    /// The body of a saved-state record: the screen as a varint, then the bytes.
    static func savedStateBody(_ data: Data, for screen: ScreenID) -> [UInt8] {
        var body: [UInt8] = []
        JournalBatch.appendVarint(screen.rawValue, to: &body)
        body += data
        return body
    }

    /// A restore replayed the journal, whose last place was `place` ("": none).
    mutating func restored(place: String) { journaledPlace = place }

    /// A restore rebuilt the journal's checkpoint: the check and the place go on from its.
    mutating func restored(_ checkpoint: Checkpoint) {
        check = PlacementCheck(stored: checkpoint.check)
        journaledPlace = checkpoint.placeText
    }

    /// A restore replayed `inputs` inputs and `savedStates` saved states of the journal.
    mutating func restored(inputs: Int, savedStates: Int) {
        held = inputs
        savedSinceCheckpoint = savedStates
        // Their sizes are not counted by the replay: the bound starts over with this run.
        savedBytesSinceCheckpoint = 0
    }

    /// Why an input or a saved state (`savedBytes` > 0) is refused now, or nil when it is taken: the
    /// writes fail and what waits in memory reached `backlogLimit`, or the saved states reached
    /// `maxSavedBytesSinceCheckpoint`.
    func refusal(savedBytes: Int = 0) -> String? {
        guard mode == .recording else { return nil }
        if let failure, pending.bytes.count >= backlogLimit {
            return """
                flowd cannot journal (\(failure)): \(pendingCount) inputs (\(pending.bytes.count) bytes) wait in memory, \
                its bound; this was not applied: send it again once the journal writes again
                """
        }
        if savedBytes > 0, savedBytesSinceCheckpoint + pendingSavedBytes + savedBytes > Self.maxSavedBytesSinceCheckpoint {
            return """
                the journal holds \(savedBytesSinceCheckpoint + pendingSavedBytes) bytes of saved states since its last checkpoint, \
                its bound (\(Self.maxSavedBytesSinceCheckpoint)); this one was not kept: save less often, or let the journal \
                compact (--compact-after, and links that name the place: flowctl stats shows why checkpoints are refused)
                """
        }
        return nil
    }

    /// Whether the journal may be compacted now: recording, everything committed, writes succeeding.
    var canCompact: Bool { mode == .recording && pending.isEmpty && retryAt == nil }

    /// Rewrites the journal as `checkpoint` and the place it is at, dropping the history before it
    /// (docs/journal.md, "Compaction"). Throws the write's error; the journal is then as it was.
    mutating func compact(to checkpoint: Checkpoint, savedStates: [ScreenID: Data] = [:], displays: [Display]? = nil) throws(JournalError) {
        precondition(canCompact, "a journal is compacted only with everything committed")
        var records = [Journal.Record(kind: Checkpoint.kind, body: checkpoint.encoded)]
        for (screen, data) in savedStates.sorted(by: { $0.key < $1.key }) {
            records.append(Journal.Record(kind: Self.savedStateKind, body: Self.savedStateBody(data, for: screen)))
        }
        // The displays are not part of the place: the input that said them comes after the checkpoint.
        if let displays {
            let (kind, body) = FlowInput.displaysChanged(displays).encoded
            records.append(Journal.Record(kind: kind, body: body))
        }
        if !checkpoint.placeText.isEmpty { records.append(Journal.Record(kind: Self.placeKind, body: Array(checkpoint.placeText.utf8))) }
        records[records.count - 1].check = check.stored
        // The old log's file closes with it: a flush of it in flight finishes first.
        drainSyncs()
        try journal.rewrite(records)
        mark &+= 1
        // The rewritten journal holds no time: the next input's is written again.
        times.reset()
        held = 0
        savedSinceCheckpoint = 0
        savedBytesSinceCheckpoint = 0
        journaledPlace = checkpoint.placeText
        // The rewrite flushed the file.
        syncDueAt = nil
    }

    /// Adds a screen command the runtime made to the check (while recording or replaying).
    mutating func observe(_ command: ScreenCommand) {
        check.add(command)
        if case .update = command { return }
        mayHaveMoved = true
    }

    /// Journals the user's place with this iteration's inputs if it changed (`place` is asked only
    /// when a screen was placed, moved or dismissed since the last commit).
    private mutating func notePlace(_ place: () -> String?) {
        guard mayHaveMoved, mode == .recording else { return }
        mayHaveMoved = false
        let now = place() ?? ""
        guard now != journaledPlace else { return }
        journaledPlace = now
        pending.append(kind: Self.placeKind, body: Array(now.utf8))
    }

    /// Commits this iteration's inputs in one transaction, the check on the last one (end of every
    /// loop iteration), with the user's `place` when it changed. A failed write keeps them for the
    /// next try, due at `retryAt` (`force`: now).
    mutating func commit(now: UInt64, place: () -> String? = { nil }) {
        iterationStamped = false
        if !pending.isEmpty { notePlace(place) }
        write(now: now, force: false)
        syncIfDue(now: now)
    }

    /// Asks for the flush of the commits not flushed yet when it is due: at each commit, and when the
    /// loop's deadline timer fires for it (which must clear the deadline: libuv 1.44 runs a timer
    /// re-armed for the past again in the same phase, without polling).
    mutating func syncIfDue(now: UInt64) {
        if let syncDueAt, now >= syncDueAt { requestSync(now: now) }
    }

    /// Appends what is pending as one batch, the check on its last record.
    private mutating func write(now: UInt64, force: Bool) {
        guard !pending.isEmpty, mode != .finished else { return }
        if let retryAt, now < retryAt, !force { return }
        if !pending.lastHasCheck { pending.setCheckOnLast(check.stored) }
        do {
            try journal.append(pending)
        } catch {
            writeFailed(error, now: now)
            return
        }
        // A pattern, not `!= nil`: the comparison copied the optional error out and destroyed the copy
        // through the runtime's generic witness on every commit.
        if case .some = failure { writesResumed() }
        if let aside = journal.takeConvertedAside() { convertedAside(aside) }
        committed += pendingInputs
        held += pendingInputs
        savedSinceCheckpoint += pendingSavedStates
        savedBytesSinceCheckpoint += pendingSavedBytes
        clearPending()
        if syncDueAt == nil { syncDueAt = max(now, lastSyncAt + Self.syncMilliseconds) }
    }

    // The cold paths of `write` are calls of their own: inline, their log lines' metadata cost the
    // commit an outlined destroy of a `(String, Logger.MetadataValue)` (~44 instructions, callgrind
    // `flowd-relay`) on every commit.

    @inline(never)
    private mutating func writeFailed(_ error: JournalError, now: UInt64) {
        if failure == nil {
            logger.error("""
                journal write failed: \(error); the inputs stay in memory and the write is tried again every second \
                (they are lost if flowd stops before it succeeds): \(error.adviceWhileWritesFail)
                """, metadata: ["inputs": "\(pendingCount)"])
        }
        retryAt = now + Self.retryMilliseconds
        if failure == nil { failure = error }
    }

    @inline(never)
    private mutating func writesResumed() {
        logger.notice("journal writes again", metadata: ["inputs": "\(pendingCount)"])
        retryAt = nil
        failure = nil
    }

    @inline(never)
    private func convertedAside(_ aside: String) {
        logger.notice("converted the SQLite journal of an older flowd into a log; the old file is kept", metadata: ["kept": "\(aside)"])
    }

    /// The last commit before the process exits: tried at once even while writes fail; if it fails
    /// too, says how many inputs are lost.
    mutating func commitBeforeExit(now: UInt64) {
        write(now: now, force: true)
        guard let failure, !pending.isEmpty, mode != .finished else { return }
        logger.error("""
            \(pendingCount) inputs could not be journaled before the stop: \(failure); \
            the next start restores the state before them
            """)
    }

    /// The daemon is shutting down: what was recorded is committed, with the place it led to
    /// (`place`, asked before the unwinding begins), and nothing after it.
    mutating func freeze(place: () -> String?, carried: () -> CarriedState? = { nil }) {
        guard mode == .recording else { return }
        if !pending.isEmpty { notePlace(place) }
        // What a next version of the app carries: last in the journal, so that it is known to be current.
        if let state = carried() { pending.append(kind: CarriedState.kind, body: state.encoded) }
        if !pending.isEmpty {
            // The check of the state before the unwinding, whose commands `observe` still adds.
            pending.setCheckOnLast(check.stored)
        }
        mode = .frozen
    }

    /// Starts this fresh journal with `records` (what an upgrade carried), as one batch.
    mutating func begin(with records: [Journal.Record]) throws(JournalError) {
        precondition(canCompact && held == 0, "a journal begins with what an upgrade carried only when it is new")
        try journal.append(records)
        mark &+= 1
    }

    /// The app ended because its root screen was lost (its host failed; no choice of the user or the
    /// flows): the journal is kept for the next start, as a crash would leave it. The inputs not yet
    /// committed, the loss among them, are dropped, as a crash before the commit drops them (no host
    /// was told their outcome): replayed, the loss would end the restored app again.
    mutating func keepForNextStart() {
        guard mode == .recording else { return }
        clearPending()
        mode = .frozen
    }

    /// The app finished: nothing is left to restore. Clears the journal (not after a shutdown froze
    /// it: the shutdown's unwinding ends the app too, and that is not the user's ending).
    mutating func finish() {
        guard mode == .recording else { return }
        mode = .finished
        clearPending()
        held = 0
        savedSinceCheckpoint = 0
        savedBytesSinceCheckpoint = 0
        do {
            try journal.clear()
            if let aside = journal.takeConvertedAside() {
                logger.notice("converted the SQLite journal of an older flowd into a log; the old file is kept", metadata: ["kept": "\(aside)"])
            }
        } catch {
            logger.error("cannot clear the journal after the app finished; the next start replays it to the end", metadata: ["error": "\(error)"])
        }
    }

    private mutating func clearPending() {
        pending.removeAll()
        pendingInputs = 0
        pendingSavedStates = 0
        pendingSavedBytes = 0
    }

    private mutating func requestSync(now: UInt64) {
        syncDueAt = nil
        lastSyncAt = now
        guard let sync = journal.syncRequest() else { return }
        syncs.async { sync.run() }
    }

    /// Waits for a flush in flight (before the journal closes).
    func drainSyncs() {
        syncs.sync {}
    }
}
