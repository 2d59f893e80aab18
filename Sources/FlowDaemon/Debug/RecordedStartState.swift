import FlowApp
import FlowJournal
import FlowKit
import FlowWire
import Foundation

/// The state a recording starts from (`Tree.start_state`): checked for form when the file is read,
/// and rebuilt before the recorded inputs are fed, exactly as a restore rebuilds a journal — the
/// app's fresh start or its checkpoint, then every record — so that screen and flow ids line up with
/// the recorded ones (docs/flowctl.md, "Recording format").
enum RecordedStartState {
    /// Throws when a record of `state` does not decode as its kind says: the recording is damaged.
    static func check(_ state: Flowd_V1_StartState, name: String) throws(ReplayError) {
        for (index, record) in state.records.enumerated() {
            if let problem = problem(with: record, at: index) {
                throw ReplayError("\(name) is damaged: record \(index + 1) of the state it starts from \(problem); record it again")
            }
        }
    }

    private static func problem(with record: Flowd_V1_StateRecord, at index: Int) -> String? {
        switch record.kind {
        case 0..<DaemonJournal.placeKind:
            do {
                _ = try FlowInput(kind: record.kind, body: Array(record.body))
                return nil
            } catch {
                return "does not decode as an input of kind \(record.kind) (\(error))"
            }
        case DaemonJournal.placeKind:
            return nil
        case InputTimes.kind:
            return InputTimes.time(in: Array(record.body)) == nil ? "is a time that does not decode (or is past the year 2262)" : nil
        case Checkpoint.kind:
            guard index == 0 else { return "is a checkpoint, which only ever comes first" }
            do throws(CheckpointMismatch) {
                _ = try Checkpoint(decoding: Array(record.body))
                return nil
            } catch {
                return "is a checkpoint that does not decode (\(error))"
            }
        case CarriedState.kind:
            do throws(CarriedState.Unreadable) {
                _ = try CarriedState(decoding: Array(record.body))
                return nil
            } catch {
                return "is a carried state that does not decode (\(error))"
            }
        case DaemonJournal.savedStateKind:
            var reader = JournalBatch.Reader(bytes: Array(record.body))
            return reader.varint() == nil ? "is a saved state that names no screen" : nil
        default:
            return "has kind \(record.kind), which no flowd writes"
        }
    }

    /// Rebuilds `state` into `runtime`, a fresh one running nothing yet, for `app`. Returns the screens
    /// the rebuilt flows show (each as its current `Place`), or why the state does not rebuild in `app`.
    static func rebuild(_ state: Flowd_V1_StartState, recordedApp: String, app: FlowApp.App,
                        into runtime: FlowRuntime) -> Result<[PlaceCommand], Mismatch> {
        guard recordedApp == app.name, state.appVersion == app.version else {
            return .failure(Mismatch("""
                the recording starts from another state than app \(app.name) (version \(app.version)) can rebuild: it was \
                recorded on app \(recordedApp) version \(state.appVersion); replay with the app and version it ran
                """))
        }
        let records = state.journalRecords
        var replay = JournalReplay()
        var ledger = PlacementLedger()
        let outcome = replay.replay(app, records: { each in
            for record in records where !each(record) { return }
        }, ledger: &ledger, into: runtime)
        switch outcome {
        case .restored(_, let screens):
            return .success(screens)
        case .diverged(let index, let reason):
            return .failure(Mismatch("""
                the state the recording starts from does not rebuild in app \(app.name) at input \(index) (\(reason)): \
                the flows decide differently from the same inputs than when it was recorded
                """))
        case .unreadable(let index, let error):
            return .failure(Mismatch("the state the recording starts from cannot be read at input \(index): \(error)"))
        }
    }

    /// Why a starting state does not rebuild in an app: a difference, not damage.
    struct Mismatch: Error {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The highest serial the recorded daemon had sent each screen of `tree`, by screen id.
    static func lastSerials(in tree: Flowd_V1_Tree) -> [ScreenID: UInt64] {
        var serials: [ScreenID: UInt64] = [:]
        func visit(_ node: Flowd_V1_NavNode) {
            if node.kind == .screen { serials[ScreenID(rawValue: node.id)] = node.screen.lastSerial }
            node.children.forEach(visit)
            if node.hasPresented { visit(node.presented) }
        }
        if tree.hasWindow { visit(tree.window) }
        return serials
    }
}
