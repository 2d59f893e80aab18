import FlowApp
import FlowJournal
import FlowKit
import Foundation

/// How a restore ended.
enum RestoreOutcome {
    /// The journal replayed: this many inputs, and the screens to re-place.
    case restored(inputs: Int, screens: [PlaceCommand])
    /// Replaying it did not arrive where the journal says (or an input was refused): the flows are
    /// not deterministic in their inputs, or the app changed without a new version.
    case diverged(atInput: Int, reason: String)
    /// The journal could not be read to its end (a damaged page).
    case unreadable(atInput: Int, JournalError)
}

/// Where a replay reads its records: calls its argument with each, in order, until it returns false.
typealias RecordSource = ((Journal.Record) -> Bool) throws(JournalError) -> Void

/// What a replay keeps besides the runtime: the placement check the records' checks are compared with
/// (`DaemonJournal` in a restore, `PlacementLedger` in `flowd replay`).
protocol ReplayLedger {
    /// The check of the commands observed so far, as records store it.
    var storedCheck: Int64 { get }
    /// Adds a screen command the replayed runtime made.
    mutating func observe(_ command: ScreenCommand)
    /// The replay rebuilt `checkpoint`: the check goes on from its.
    mutating func restored(_ checkpoint: Checkpoint)
}

/// The ledger of a replay that journals nothing: the placement check alone.
struct PlacementLedger: ReplayLedger {
    private(set) var check = PlacementCheck()
    var storedCheck: Int64 { check.stored }
    mutating func observe(_ command: ScreenCommand) { check.add(command) }
    mutating func restored(_ checkpoint: Checkpoint) { check = PlacementCheck(stored: checkpoint.check) }
}

extension DaemonJournal: ReplayLedger {
    var storedCheck: Int64 { check.stored }
}

/// The restore as a part of its own: a new runtime replays the journal's inputs with nothing
/// delivered and nothing started, through its own settle loop. The screen commands its flows make
/// are folded into the screens to place again (`RestoredScreens`) and added to the journal's
/// placement check, which must match the journaled one at each batch's end; the root flow's end is
/// kept; flow events, requests and unwindings are the old daemon's, already seen. The daemon starts
/// from the outcome: it places the screens, acts on the root flow's end, starts the requests left
/// without an answer, and remembers the replayed inputs' keys (`appliedKeys`).
struct JournalReplay {
    /// What the replay placed, and how the root flow ended during it.
    private(set) var screens = RestoredScreens()
    /// The keys of the latest inputs replayed: a host may send them again.
    private(set) var appliedKeys = AppliedKeys()
    /// The last place the journal holds ("": none).
    private(set) var lastPlace = ""
    /// Saved-state records replayed (they count toward the next compaction).
    private(set) var savedStates = 0
    /// Reused by the settle loop.
    private var effects: [RuntimeEffect] = []

    /// Replays every input of `journal` into `runtime`, a fresh one, checking the placements at each
    /// batch's end. The app starts first: from nothing, or — when the journal begins with a checkpoint
    /// (a compacted journal) — rebuilt at the checkpoint's place, with its ids, counters, check and keys.
    mutating func replay(_ app: FlowApp.App, _ journal: inout DaemonJournal, into runtime: FlowRuntime) -> RestoreOutcome {
        let log = journal.journal
        return replay(app, records: log.forEachRecord, ledger: &journal, into: runtime)
    }

    /// Replays `records` (a journal's, or a recording's starting state) into `runtime`, a fresh one, as
    /// a restore does: `ledger` keeps the placement check the records' checks are compared with.
    mutating func replay<Ledger: ReplayLedger>(_ app: FlowApp.App, records forEachRecord: RecordSource,
                                               ledger journal: inout Ledger, into runtime: FlowRuntime) -> RestoreOutcome {
        var index = 0
        var divergence: String?
        var started = false
        // Flow events are the old daemon's, seen when they happened: not described again.
        runtime.reportsFlowEvents = false
        defer { runtime.reportsFlowEvents = true }
        do {
            try forEachRecord { record in
                if !started {
                    started = true
                    if record.kind == Checkpoint.kind {
                        do throws(CheckpointMismatch) {
                            let checkpoint = try Checkpoint(decoding: record.body)
                            try checkpoint.rebuild(app, on: runtime) { settle($0, journal: &journal) }
                            journal.restored(checkpoint)
                            appliedKeys = AppliedKeys(checkpoint.appliedKeys)
                            lastPlace = checkpoint.place
                            return true
                        } catch {
                            divergence = "its checkpoint does not restore: \(error)"
                            return false
                        }
                    }
                    app.start(runtime)
                    settle(runtime, journal: &journal)
                }
                // The user's place: not an input (a new version reads it); a batch's check may be on it.
                if record.kind == Checkpoint.kind {
                    divergence = "it holds a checkpoint after input \(index); a checkpoint only starts a journal"
                    return false
                }
                // What a host saved for a screen: the screen's place carries it from now on.
                if record.kind == DaemonJournal.savedStateKind {
                    var reader = JournalBatch.Reader(bytes: record.body)
                    guard let screen = reader.varint() else {
                        divergence = "a saved state after input \(index) does not name its screen"
                        return false
                    }
                    screens.save(Data(record.body[reader.offset...]), for: ScreenID(rawValue: screen))
                    savedStates += 1
                    if let check = record.check, check != journal.storedCheck {
                        divergence = "the placements after input \(index) differ from the journaled ones"
                        return false
                    }
                    return true
                }
                if record.kind == DaemonJournal.placeKind {
                    lastPlace = String(decoding: record.body, as: UTF8.self)
                    if let check = record.check, check != journal.storedCheck {
                        divergence = "the placements after input \(index) differ from the journaled ones"
                        return false
                    }
                    return true
                }
                index += 1
                let input: FlowInput
                do {
                    input = try FlowInput(kind: record.kind, body: record.body)
                } catch {
                    divergence = "it does not decode: \(error)"
                    return false
                }
                do throws(FlowKitError) {
                    _ = try runtime.apply(input)
                } catch {
                    divergence = "the flows refused \(input): \(error.message)"
                    return false
                }
                appliedKeys.insert(UInt64(bitPattern: record.key))
                settle(runtime, journal: &journal)
                if let check = record.check, check != journal.storedCheck {
                    divergence = "the placements after it differ from the journaled ones"
                    return false
                }
                return true
            }
        } catch {
            return .unreadable(atInput: index + 1, error)
        }
        if !started {
            app.start(runtime)
            settle(runtime, journal: &journal)
        }
        if let divergence { return .diverged(atInput: index, reason: divergence) }
        return .restored(inputs: index, screens: screens.live { runtime.model.contains($0) })
    }

    /// The replay's settle loop: commands folded and checked, the root's end kept, the rest dropped.
    private mutating func settle<Ledger: ReplayLedger>(_ runtime: FlowRuntime, journal: inout Ledger) {
        runtime.settle(reusing: &effects) { effect in
            switch effect {
            case .command(let command):
                journal.observe(command)
                screens.apply(command)
            case .root(let outcome):
                screens.rootReported(outcome)
            case .flow, .request, .cancelRequest, .unwound:
                // Seen when they first happened; the requests still unanswered start after the replay.
                break
            }
        }
    }
}
