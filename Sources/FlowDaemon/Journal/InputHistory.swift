import FlowJournal
import FlowKit
import Foundation

/// The inputs since the app's start, kept in memory by a daemon that keeps no journal (`--no-state`),
/// so that `flowctl record` can start a recording at any moment with what rebuilds the state
/// (docs/flowctl.md, "Recording format"). Bounded: past `limit` records it lets them go and keeps no
/// more, and a recording started after that is refused with the reason.
struct InputHistory {
    /// The most records kept: about 2.6 MB of a launcher's inputs, more than a frame carries by default.
    static let limit = 65_536

    /// The records since the app's start, oldest first (empty once `overflowed`).
    private(set) var records: [Journal.Record] = []
    /// Whether more than `limit` records came: the history is gone for the rest of the run.
    private(set) var overflowed = false
    /// When the inputs were received, as the journal keeps it.
    private var times = InputTimes()

    /// Keeps an input the runtime accepted, with its sender's key, received at `time` (milliseconds
    /// since the Unix epoch).
    mutating func record(_ input: FlowInput, key: UInt64, at time: UInt64) {
        if let stamp = times.stamp(time) { append(stamp) }
        let (kind, body) = input.encoded
        append(Journal.Record(kind: kind, body: body, key: Int64(bitPattern: key)))
    }

    /// Keeps what a host saved for `screen`.
    mutating func recordSavedState(_ data: Data, for screen: ScreenID) {
        append(Journal.Record(kind: DaemonJournal.savedStateKind, body: DaemonJournal.savedStateBody(data, for: screen)))
    }

    private mutating func append(_ record: Journal.Record) {
        guard !overflowed else { return }
        guard records.count < Self.limit else {
            overflowed = true
            records = []
            return
        }
        records.append(record)
    }
}
