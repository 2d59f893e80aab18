import FlowKit

/// What keeps the app across restarts of the daemon, as one part: the journal of inputs (nil:
/// `--no-state`), the keys of the latest inputs applied (a repeat is dropped), the restore in
/// progress and how many inputs it restored — and the one entry every input that changes the app
/// takes, `feed`: applied to the runtime, then journaled. Opening, restoring and moving a bad
/// journal aside are the driver's (`DaemonCore+Journal.swift`, `DaemonCore+Restore.swift`); the state is here.
struct Persistence {
    /// The journal (nil: none is kept).
    private(set) var journal: DaemonJournal?
    /// Keys of the latest inputs applied.
    private var appliedKeys = AppliedKeys()
    /// Inputs replayed from the journal at start.
    private(set) var restoredInputs = 0

    /// Whether an input with `key` was applied already (a host sent it again, not knowing whether
    /// it arrived: docs/protocol.md §20).
    func hasApplied(_ key: UInt64) -> Bool { appliedKeys.contains(key) }

    /// Feeds one input to `runtime` and, once accepted, journals it: every input that changes the app
    /// enters here. Returns what an `.openLink` opened. Throws, journaling nothing, when the runtime
    /// refuses it.
    mutating func feed(_ input: FlowInput, key: UInt64, into runtime: FlowRuntime) throws(FlowKitError) -> OpenedLink? {
        let opened = try runtime.apply(input)
        appliedKeys.insert(key)
        journal?.record(input, key: key)
        return opened
    }

    /// A restore (`JournalReplay`) replayed `inputs` inputs, the latest with `keys`.
    mutating func restored(inputs: Int, keys: AppliedKeys) {
        restoredInputs = inputs
        appliedKeys = keys
    }

    /// Uses `journal` from now on (nil: none).
    mutating func use(_ journal: DaemonJournal?) {
        self.journal = journal
    }

    /// Closes the journal (waiting for a flush in flight) and keeps none.
    mutating func close() {
        journal?.drainSyncs()
        journal = nil
    }

    /// Adds a screen command the runtime made to the journal's placement check.
    mutating func observe(_ command: ScreenCommand) { journal?.observe(command) }

    /// Commits the loop iteration's inputs (once per iteration, before frames are written: what a
    /// host is told is journaled first); a failed write is tried again at `nextDeadline`.
    mutating func commit(now: UInt64) { journal?.commit(now: now) }

    /// The last commit, as the daemon stops: tried even before the next retry is due.
    mutating func commitBeforeExit(now: UInt64) { journal?.commitBeforeExit(now: now) }

    /// The daemon is shutting down: nothing more is journaled.
    mutating func freeze() { journal?.freeze() }

    /// The app finished: the journal is cleared.
    mutating func finish() { journal?.finish() }

    /// When a failed write is tried again.
    var nextDeadline: UInt64? { journal?.retryAt }
}
