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
        var divergence: String?
        var started = false
        // Flow events are the old daemon's, seen when they happened: not described again.
        defer { runtime.reportsFlowEvents = true }
        do {
            try forEachRecord { record in
                if !started {
                    started = true
                    switch begin(app, first: record, ledger: &journal, into: runtime) {
                    case .failure(let reason):
                        divergence = reason.description
                        return false
                    case .success(true):
                        return true
                    case .success(false):
                        break
                    }
                }
                if case .failure(let reason) = step(record, ledger: &journal, into: runtime) {
                    divergence = reason.description
                    return false
                }
                return true
            }
        } catch {
            return .unreadable(atInput: inputs + 1, error)
        }
        if !started { _ = begin(app, first: nil, ledger: &journal, into: runtime) }
        if let divergence { return .diverged(atInput: inputs, reason: divergence) }
        return .restored(inputs: inputs, screens: screens.live { runtime.model.contains($0) })
    }

    /// Why a record did not replay, in words for the person reading the log.
    struct Divergence: Error, CustomStringConvertible {
        var description: String
    }

    /// Inputs applied so far.
    private(set) var inputs = 0

    /// Starts `app` in `runtime`, a fresh one, with its flow events silenced: from `first` when that is
    /// a checkpoint (rebuilt at its place, with its ids, counters, check and keys; true: `first` was
    /// consumed) or the start an upgrade made (`CarriedState`: its mementos given back, its place
    /// opened), else from nothing (false: `first`, if any, is still to be stepped).
    mutating func begin<Ledger: ReplayLedger>(_ app: FlowApp.App, first: Journal.Record?, ledger journal: inout Ledger,
                                              into runtime: FlowRuntime) -> Result<Bool, Divergence> {
        runtime.reportsFlowEvents = false
        if let first, first.kind == Checkpoint.kind {
            do throws(CheckpointMismatch) {
                let checkpoint = try Checkpoint(decoding: first.body)
                try checkpoint.rebuild(app, on: runtime) { settle($0, journal: &journal) }
                journal.restored(checkpoint)
                appliedKeys = AppliedKeys(checkpoint.appliedKeys)
                lastPlace = checkpoint.placeText
                return .success(true)
            } catch {
                return .failure(Divergence(description: "its checkpoint does not restore: \(error)"))
            }
        }
        if let first, first.kind == CarriedState.kind {
            // A journal an upgrade started: the app starts as the upgrade started it, with the mementos
            // it carried, at the place it opened.
            let carried: CarriedState
            do throws(CarriedState.Unreadable) {
                carried = try CarriedState(decoding: first.body)
            } catch {
                return .failure(Divergence(description: "its start from another version does not restore: \(error)"))
            }
            let opened = carried.open(app, on: runtime) { settle($0, journal: &journal) }
            guard opened.place == carried.place else {
                return .failure(Divergence(description: "its start from another version opens \(opened.place.isEmpty ? "no place" : opened.place), not \(carried.place)"))
            }
            lastPlace = carried.place
            if let check = first.check, check != journal.storedCheck {
                return .failure(Divergence(description: "the placements of its start from another version differ from the journaled ones"))
            }
            return .success(true)
        }
        app.start(runtime)
        settle(runtime, journal: &journal)
        return .success(false)
    }

    /// Applies one record after `begin`: an input to the runtime (then settled, and its check compared),
    /// a place or a saved state to what is kept. Fails, applying nothing more, when the record does
    /// not decode, the flows refuse it, or the placements differ from the journaled check.
    mutating func step<Ledger: ReplayLedger>(_ record: Journal.Record, ledger journal: inout Ledger,
                                             into runtime: FlowRuntime) -> Result<Void, Divergence> {
        func diverged(_ reason: String) -> Result<Void, Divergence> { .failure(Divergence(description: reason)) }
        // The user's place: not an input (a new version reads it); a batch's check may be on it.
        switch record.kind {
        case Checkpoint.kind:
            return diverged("it holds a checkpoint after input \(inputs); a checkpoint only starts a journal")
        case DaemonJournal.savedStateKind:
            // What a host saved for a screen: the screen's place carries it from now on.
            var reader = JournalBatch.Reader(bytes: record.body)
            guard let screen = reader.varint() else { return diverged("a saved state after input \(inputs) does not name its screen") }
            screens.save(Data(record.body[reader.offset...]), for: ScreenID(rawValue: screen))
            savedStates += 1
            if let check = record.check, check != journal.storedCheck {
                return diverged("the placements after input \(inputs) differ from the journaled ones")
            }
            return .success(())
        case CarriedState.kind:
            // What a stop left for a next version of the app: not for this one.
            if let check = record.check, check != journal.storedCheck {
                return diverged("the placements after input \(inputs) differ from the journaled ones")
            }
            return .success(())
        case InputTimes.kind:
            // When the next inputs were received: for people (the timeline), not for the flows.
            return .success(())
        case DaemonJournal.placeKind:
            lastPlace = String(decoding: record.body, as: UTF8.self)
            if let check = record.check, check != journal.storedCheck {
                return diverged("the placements after input \(inputs) differ from the journaled ones")
            }
            return .success(())
        default:
            break
        }
        inputs += 1
        let input: FlowInput
        do {
            input = try FlowInput(kind: record.kind, body: record.body)
        } catch {
            return diverged("it does not decode: \(error)")
        }
        do throws(FlowKitError) {
            _ = try runtime.apply(input)
        } catch {
            return diverged("the flows refused \(input): \(error.message)")
        }
        appliedKeys.insert(UInt64(bitPattern: record.key))
        settle(runtime, journal: &journal)
        if let check = record.check, check != journal.storedCheck {
            return diverged("the placements after it differ from the journaled ones")
        }
        return .success(())
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
