import Dispatch
import Foundation
import FlowApp
import FlowJournal
import FlowKit
import Logging

/// When the journal is compacted, and what came of it (docs/restore.md, "Long sessions"): once it
/// holds `afterInputs` inputs, at the end of a loop iteration with everything committed and nothing
/// in flight, a checkpoint of the user's place is taken and checked (`Checkpoint.take`) and the
/// journal is rewritten from it. A refused checkpoint changes nothing and is tried again after as
/// many inputs more, twice as many after each refusal in a row (up to 64 times as many): an app that
/// never checks out (its flows do not handle links) costs a try, and a log line, ever more rarely.
/// A refusal is logged as a notice when its reason is new, else at debug level.
struct Compaction {
    /// Inputs after which a compaction is tried (0: never).
    let afterInputs: Int
    /// The journal's input count at which the next try is due.
    private var dueAt: Int
    /// Checkpoints taken and written since the daemon started.
    private(set) var taken = 0
    /// Checkpoints refused (the place does not rebuild the tree) or not written (the write failed).
    private(set) var refused = 0
    /// Why the last one was refused ("" when none was).
    private(set) var lastRefusal = ""
    /// Refusals since the last checkpoint taken: the wait before the next try doubles with each.
    private var refusalsInARow = 0
    /// The most the wait grows: 64 times `afterInputs`.
    static let maxBackoffShift = 6

    init(afterInputs: Int) {
        self.afterInputs = afterInputs
        dueAt = afterInputs
    }

    /// Whether a try is due for a journal that holds `inputs` inputs.
    func isDue(inputs: Int) -> Bool { afterInputs > 0 && inputs >= dueAt }

    /// Compacts `journal`, whose record count is due, to a checkpoint of `runtime` (running `app`) when
    /// one checks out; returns what to tell. Changes nothing else when it does not.
    mutating func compact(_ journal: inout DaemonJournal, runtime: FlowRuntime, app: FlowApp.App, appliedKeys: AppliedKeys,
                          savedStates: [ScreenID: Data]) -> Notice? {
        guard journal.canCompact, runtime.isQuiet else { return nil }  // tried again at the next iteration's end
        let inputs = journal.held + journal.savedSinceCheckpoint
        let bytes = journal.journal.size
        let started = DispatchTime.now().uptimeNanoseconds
        let wait = afterInputs << min(refusalsInARow, Self.maxBackoffShift)
        dueAt = inputs + wait
        let checkpoint: Checkpoint
        switch Checkpoint.take(of: runtime, app: app, check: journal.check.stored, appliedKeys: appliedKeys) {
        case .success(let taken): checkpoint = taken
        case .failure(let mismatch):
            let level: Logger.Level = mismatch.description == lastRefusal ? .debug : .notice
            refuse(mismatch.description)
            return Notice(level, """
                the journal was not compacted to a checkpoint of the user's place: \(mismatch); \
                it keeps its history and is tried again after \(wait) more inputs
                """, ["place": "\(PlaceText.of(runtime))", "inputs": "\(inputs)"])
        }
        do {
            try journal.compact(to: checkpoint, savedStates: savedStates, displays: runtime.displays)
        } catch {
            refuse("\(error)")
            return Notice(.warning, "the journal was not compacted: \(error); it keeps its history", ["inputs": "\(inputs)"])
        }
        taken += 1
        refusalsInARow = 0
        dueAt = afterInputs
        let micros = (DispatchTime.now().uptimeNanoseconds - started) / 1_000
        return Notice(.info, "compacted the journal to a checkpoint of the user's place", [
            "place": "\(checkpoint.placeText)", "inputs": "\(inputs)", "bytes_before": "\(bytes)",
            "bytes_after": "\(journal.journal.size)", "microseconds": "\(micros)",
        ])
    }

    private mutating func refuse(_ reason: String) {
        refused += 1
        refusalsInARow += 1
        lastRefusal = reason
    }
}
