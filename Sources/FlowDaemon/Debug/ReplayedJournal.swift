import FlowApp
import FlowJournal
import FlowKit
import FlowWire
import Foundation

/// A recording turned into the journal a daemon restores from (`flowd replay FILE --until N --serve`):
/// the records of the state it starts from, then its first N inputs as the daemon would have journaled
/// them, each applied to a scratch runtime first — outputs in the screen's own form, and a
/// dismissal acknowledged for every `Dismiss`, as `flowd replay`'s fake screens answer. A daemon
/// started on it restores exactly that moment, and hosts attach and go on from there
/// (docs/flowctl.md, "History").
public enum ReplayedJournal {
    /// The journal's records, and how many of the recording's inputs they hold.
    public struct Records {
        public var records: [Journal.Record]
        public var inputs: Int
        /// Inputs the recording holds in all.
        public var recordedInputs: Int
    }

    /// The records that rebuild `recording`'s app after its first `until` inputs (nil: all of them).
    /// Throws when the recording cannot be replayed against `app` (its state does not rebuild, or it
    /// lost events or payloads).
    public static func records(of recording: Recording, app: FlowApp.App, until: Int?) throws(ReplayError) -> Records {
        if let first = recording.lagged.first {
            throw ReplayError("the recording lost events (the recorder lagged before seq \(first.nextSeq)); it cannot be replayed exactly, record again")
        }
        let runtime = FlowRuntime()
        var records: [Journal.Record] = []
        let tree = recording.tree
        if tree.hasStartState {
            if case .failure(let mismatch) = RecordedStartState.rebuild(tree.startState, recordedApp: tree.app, app: app, into: runtime) {
                throw ReplayError(mismatch.description)
            }
            records = tree.startState.journalRecords
        } else {
            app.start(runtime)
            acknowledgeDismissals(runtime, into: &records)
        }
        var inputs = 0
        var recordedInputs = 0
        for event in recording.events {
            // Past the moment: counted (for the message on a --until too large), not applied.
            if let until, inputs >= until {
                if Replay.isInput(event) { recordedInputs += 1 }
                continue
            }
            guard let recorded = try Replay.input(of: event, for: runtime) else { continue }
            recordedInputs += 1
            inputs += 1
            guard case .input(let input) = recorded else { continue }
            // The daemon's shutdown: the daemon froze its journal first and never journals it, so a
            // journal ends before it (the app as it was when the daemon stopped).
            if case .terminateAll = input { continue }
            guard accepts(runtime, input) else { continue }
            records.append(record(input))
            acknowledgeDismissals(runtime, into: &records)
        }
        return Records(records: records, inputs: inputs, recordedInputs: recordedInputs)
    }

    /// Settles `runtime`, answering every `Dismiss` it makes with its acknowledgement, journaled.
    private static func acknowledgeDismissals(_ runtime: FlowRuntime, into records: inout [Journal.Record]) {
        var effects: [RuntimeEffect] = []
        var dismissed: [ScreenID] = []
        repeat {
            dismissed.removeAll()
            runtime.settle(reusing: &effects) { effect in
                if case .command(.dismiss(let screen, _, _)) = effect { dismissed.append(screen) }
            }
            for screen in dismissed {
                let input = FlowInput.dismissalCompleted(screen, .acknowledged)
                guard accepts(runtime, input) else { continue }
                records.append(record(input))
            }
        } while !dismissed.isEmpty
    }

    /// Applies `input`; false when the flows refuse it (the daemon journals only what they accept).
    private static func accepts(_ runtime: FlowRuntime, _ input: FlowInput) -> Bool {
        do {
            _ = try runtime.apply(input)
            return true
        } catch {
            return false
        }
    }

    private static func record(_ input: FlowInput) -> Journal.Record {
        let (kind, body) = input.encoded
        return Journal.Record(kind: kind, body: body)
    }

    /// Writes `records` as a new journal of `app` at `path`, which must not exist yet.
    public static func write(_ records: [Journal.Record], app: FlowApp.App, to path: String) throws(ReplayError) {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw ReplayError("\(path) exists; give a path for a new journal (it is not overwritten)")
        }
        do {
            let journal = try Journal(path: path, identity: Journal.Identity(app: app.name, appVersion: app.version))
            try journal.append(records)
        } catch {
            throw ReplayError("cannot write the journal at \(path): \(error)")
        }
    }
}
