import FlowApp
import FlowJournal
import FlowKit
import Foundation
import Logging

/// What a start carried from a journal it could not replay, said once the app is restored: one line,
/// `info` for a planned upgrade (`notice` after a journal that did not replay, which was an error).
struct CarriedSummary {
    /// The log line.
    var notice: Notice
    /// The place opened ("": the app's start).
    var place: String
    /// The `RESTORED` event's text.
    var event: String
}

extension AppCore {
    /// Starts the fresh journal from what `carried` holds (docs/restore.md, "A new version of the app"):
    /// a scratch runtime starts the app with the old mementos given back as their flows start (decoded,
    /// or migrated: `LinkHandling.mementoMigrations`) and opens the old place a segment at a time; the
    /// saved states whose screen shows again, with its kind's contract unchanged, are matched to it.
    /// The journal then begins with that start (`CarriedState`, kind 68), the saved states (kind 66)
    /// and the place, and the caller restores it as any journal, so the app is exactly what a later
    /// crash restores. Tells a warning for each memento dropped; returns the one line to say once the
    /// app is restored, or nil when the journal cannot be written (the app then starts at its start).
    mutating func startFromCarried(_ carried: Persistence.CarriedPlace, app: FlowApp.App) -> CarriedSummary? {
        var start = carried.state ?? CarriedState(place: "", mementos: [], savedStates: [])
        start.place = carried.link
        let scratch = FlowRuntime()
        scratch.reportsFlowEvents = false
        var ledger = PlacementLedger()
        var effects: [RuntimeEffect] = []
        let opened = start.open(app, on: scratch) { runtime in
            runtime.settle(reusing: &effects) { effect in
                if case .command(let command) = effect { ledger.observe(command) }
            }
        }
        // The saved states: each to the screen at its place, when its kind's contract is the same.
        let contracts = start.savedStates.isEmpty ? [:] : CarriedState.fingerprints(of: app)
        var waiting = Dictionary(start.savedStates.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        var savedRecords: [Journal.Record] = []
        var notCarried: [String] = []
        for screen in scratch.screenIDs.sorted() {
            guard let key = scratch.carryKey(ofScreen: screen), let saved = waiting.removeValue(forKey: key) else { continue }
            if saved.contract == contracts[saved.kind] ?? "" {
                savedRecords.append(Journal.Record(kind: DaemonJournal.savedStateKind, body: DaemonJournal.savedStateBody(saved.data, for: screen)))
            } else {
                notCarried.append("the saved state of \(key) (the contract of kind \(saved.kind) changed)")
            }
        }
        notCarried += waiting.keys.sorted().map { "the saved state of \($0) (no such screen shows in this version)" }

        var records = [Journal.Record(kind: CarriedState.kind, body: CarriedState(place: opened.place, mementos: start.mementos, savedStates: []).encoded)]
        records += savedRecords
        if !opened.place.isEmpty { records.append(Journal.Record(kind: DaemonJournal.placeKind, body: Array(opened.place.utf8))) }
        records[records.count - 1].check = ledger.check.stored
        do {
            try persistence.begin(with: records)
        } catch {
            logger.warning("what the journal of version \(carried.version) carried could not be journaled: \(error); the app starts at its start")
            return nil
        }

        // What was carried and what was not, said once.
        for refusal in opened.report.refused {
            tell(Notice(.warning, "the memento of \(refusal.key) from version \(carried.version) was dropped: \(refusal.reason); the flow starts without it",
                        ["flow": "\(refusal.key)"]))
        }
        notCarried = opened.refused.map { "the link \($0)" }
            + opened.report.refused.map { "the memento of \($0.key) (\($0.reason))" }
            + opened.report.unclaimed.map { "the memento of \($0) (no such flow starts in this version)" }
            + notCarried
        if carried.state == nil, !carried.stateMissing.isEmpty { notCarried.append("mementos and saved states: \(carried.stateMissing)") }
        let mementos = "\(opened.report.carried.count) of \(start.mementos.count) memento\(start.mementos.count == 1 ? "" : "s")"
        let saved = "\(savedRecords.count) of \(start.savedStates.count) saved state\(start.savedStates.count == 1 ? "" : "s")"
        let said = PlaceText.said(opened.place)
        let place = opened.place.isEmpty ? "no place (the app's start)" : "the place \(said)"
        let text = "carried \(place), \(mementos) and \(saved)" + (notCarried.isEmpty ? "" : "; not carried: \(notCarried.joined(separator: "; "))")
        if !opened.place.isEmpty { persistence.carriedOver(said, from: carried.version) }
        persistence.carriedOver = "\(opened.place.isEmpty ? "no place" : said), \(mementos), \(saved) (version \(carried.version))"
        let metadata: Logger.Metadata = [
            "place": "\(said)", "journal_place": "\(PlaceText.said(carried.link))", "journal_version": "\(carried.version)",
            "mementos_carried": "\(opened.report.carried.count)", "mementos_dropped": "\(start.mementos.count - opened.report.carried.count)",
            "saved_states_carried": "\(savedRecords.count)", "saved_states_dropped": "\(start.savedStates.count - savedRecords.count)",
        ]
        let notice: Notice
        if carried.upgrade {
            let archive = persistence.journalArchive
            notice = Notice(.info, "upgraded the app from version \(carried.version) to \(app.version): \(text); the journal of version \(carried.version) is kept at \(archive) until the next upgrade",
                            metadata.merging(["archive": "\(archive)"]) { $1 })
        } else {
            notice = Notice(.notice, "the journal did not replay; the fresh start \(text)", metadata.merging(["why": "\(carried.why)"]) { $1 })
        }
        let event = opened.place.isEmpty
            ? "started version \(app.version) at its start: no part of the place the journal of version \(carried.version) was at opens"
            : "opened \(said), where the journal of version \(carried.version) was" + (opened.refused.isEmpty ? "" : " (\(opened.refused.joined(separator: "; ")))")
        return CarriedSummary(notice: notice, place: opened.place, event: event)
    }
}
