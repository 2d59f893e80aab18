import FlowJournal

/// When inputs were received, as the journal keeps it: a record of kind 67 (the wall clock in
/// milliseconds since the Unix epoch, a varint) before the first input of a loop iteration (the
/// journal reads the clock once per iteration with inputs; the in-memory history of `--no-state`,
/// once per input) whenever the millisecond changed since the last one, so a flood costs one
/// record per iteration at most. Not an input: a
/// restore skips it; the timeline (`flowctl history`) reads it (docs/journal.md, "Records").
struct InputTimes {
    /// The record kind of a time.
    static let kind: Int64 = 67
    /// The last time recorded (0: none yet).
    private var last: UInt64 = 0

    /// The record to write before an input received at `time`, or nil when the last one still says it.
    mutating func stamp(_ time: UInt64) -> Journal.Record? {
        guard time != last, time > 0 else { return nil }
        last = time
        var body: [UInt8] = []
        JournalBatch.appendVarint(time, to: &body)
        return Journal.Record(kind: Self.kind, body: body)
    }

    /// The latest time a record may hold: the end of `Int64` nanoseconds (the year 2262).
    static let latest = UInt64(Int64.max / 1_000_000)

    /// The time a record of kind 67 holds, in milliseconds since the Unix epoch; nil when it does not
    /// decode or is past `latest`.
    static func time(in body: [UInt8]) -> UInt64? {
        var reader = JournalBatch.Reader(bytes: body)
        guard let time = reader.varint(), reader.offset == body.count, time <= latest else { return nil }
        return time
    }

    /// The time a record of kind 67 holds, in nanoseconds since the Unix epoch; 0 when it does not decode.
    static func nanoseconds(in body: [UInt8]) -> Int64 {
        time(in: body).map { Int64($0) * 1_000_000 } ?? 0
    }

    /// Forgets the last time written: the next input gets a record of its own (after a rewrite).
    mutating func reset() { last = 0 }
}
