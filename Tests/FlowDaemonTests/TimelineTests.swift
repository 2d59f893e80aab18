import DemoApps
import FlowApp
@testable import FlowDaemon
import FlowDaemonTesting
import FlowJournal
import FlowKit
import FlowWire
import FlowdTestSupport
import Foundation
import Testing

/// The history's parts on their own (the whole is tested from the outside in HistoryIntegrationTests):
/// the timeline's catch-up, its numbering, its answers to values a debug client may send, and the
/// journal of a moment `flowd replay --serve` writes.
@Suite("The history's timeline")
struct TimelineTests {
    static var app: App { RecordFromAnyMomentTests.app }

    /// The records of a launcher after `presses` presses of the visible screen's first button.
    static func records(presses: Int) throws -> [Journal.Record] {
        let (daemon, host, debug) = try RecordFromAnyMomentTests.launcher(.noState)
        for _ in 0..<presses { try CompactionTests.press(0, daemon, host: host) }
        var ask = Flowd_V1_GetTree()
        ask.startState = true
        _ = debug.send(.getTree(ask))
        let tree = try #require(debug.readBodies().lazy.compactMap { body -> Flowd_V1_Tree? in
            if case .tree(let tree) = body { tree } else { nil }
        }.first)
        return tree.startState.journalRecords
    }

    @Test func aCommittedRecordIsTheSameRecordAndTheReplayGoesOn() throws {
        let records = try Self.records(presses: 3)
        #expect(records.contains { $0.kind == InputTimes.kind }, "the times the presses were received")
        let timeline = Timeline(app: Self.app)
        #expect(timeline.catchUp(records))
        let (epoch, count) = (timeline.epoch, timeline.count)
        #expect(count == records.count { $0.kind < 64 } && count >= 3, "every input: the presses and the dismissals they caused")
        // The same records once committed: the last one of the batch gets its check.
        var committed = records
        committed[committed.count - 1].check = 42
        #expect(timeline.catchUp(committed))
        #expect(timeline.epoch == epoch && timeline.count == count, "not replayed again")
        // Another start (a compaction): numbered again.
        #expect(timeline.catchUp(Array(records.prefix(1))))
        #expect(timeline.epoch == epoch + 1)
    }

    @Test func aSliceStopsInTimeAndTheNextGoesOn() throws {
        let records = try Self.records(presses: 100)
        #expect(records.count > 3 * 32)
        let timeline = Timeline(app: Self.app)
        #expect(!timeline.catchUp(records, budget: 0), "a slice of no time replays 32 records")
        var slices = 1
        repeat { slices += 1 } while !timeline.resume(budget: 0)
        #expect(slices >= records.count / 32, "\(slices) slices of 32 records for \(records.count)")
        #expect(timeline.count == records.count { $0.kind < 64 })
        let whole = Timeline(app: Self.app)
        whole.catchUp(records)
        #expect(timeline.moments.map(\.view) == whole.moments.map(\.view), "sliced or not, the same moments")
    }

    @Test func valuesFromTheWireNeitherTrapNorMislead() throws {
        let timeline = Timeline(app: Self.app)
        timeline.catchUp(try Self.records(presses: 2))
        var ask = Flowd_V1_GetHistory()
        ask.from = UInt64.max
        ask.limit = UInt64.max
        #expect(try HistoryAnswer.history(timeline, ask, app: Self.app, maxFrameSize: 1 << 20).get().inputs.isEmpty)
        ask.from = 2
        #expect(try HistoryAnswer.history(timeline, ask, app: Self.app, maxFrameSize: 1 << 20).get().inputs.map(\.index) == Array(2...UInt64(timeline.count)))
        ask.from = 0
        ask.limit = 1
        #expect(try HistoryAnswer.history(timeline, ask, app: Self.app, maxFrameSize: 1 << 20).get().inputs.map(\.index) == [1])
        // A frame too small for an input's events: the first input comes cut, the rest waits.
        ask.limit = 0
        ask.events = true
        let small = try HistoryAnswer.history(timeline, ask, app: Self.app, maxFrameSize: 200).get()
        #expect(small.inputs.count == 1 && small.inputs[0].cut && small.inputs[0].events.isEmpty)
        // Another numbering than the one expected is refused.
        ask.expectEpoch = timeline.epoch + 1
        #expect(throws: HistoryAnswer.Refusal.self) { try HistoryAnswer.history(timeline, ask, app: Self.app, maxFrameSize: 1 << 20).get() }
        var moment = Flowd_V1_GetMoment()
        moment.index = UInt64.max
        #expect(throws: HistoryAnswer.Refusal.self) { try HistoryAnswer.moment(timeline, moment, app: Self.app, maxFrameSize: 1 << 20).get() }
    }

    @Test func aStartThatDoesNotRebuildIsRefusedNotIndexed() throws {
        let timeline = Timeline(app: Self.app)
        // A checkpoint of a layout no flowd writes.
        timeline.catchUp([Journal.Record(kind: Checkpoint.kind, body: [9])])
        #expect(timeline.moments.isEmpty && timeline.stopped?.hasPrefix("the start does not rebuild") == true)
        var moment = Flowd_V1_GetMoment()
        moment.index = 0
        #expect(throws: HistoryAnswer.Refusal.self) { try HistoryAnswer.moment(timeline, moment, app: Self.app, maxFrameSize: 1 << 20).get() }
        #expect(throws: HistoryAnswer.Refusal.self) { try HistoryAnswer.history(timeline, .init(), app: Self.app, maxFrameSize: 1 << 20).get() }
        // Asked again, it stays stopped (the start is not begun a second time on the same runtime).
        timeline.catchUp([Journal.Record(kind: Checkpoint.kind, body: [9])])
        #expect(timeline.moments.isEmpty)
    }

    @Test func aTimePastTheYear2262IsNotKnownRatherThanATrap() {
        var body: [UInt8] = []
        JournalBatch.appendVarint(UInt64.max, to: &body)
        #expect(InputTimes.time(in: body) == nil && InputTimes.nanoseconds(in: body) == 0)
        body = []
        JournalBatch.appendVarint(1_795_900_000_000, to: &body)
        #expect(InputTimes.nanoseconds(in: body) == 1_795_900_000_000_000_000)
        var times = InputTimes()
        #expect(times.stamp(5) != nil && times.stamp(5) == nil && times.stamp(6) != nil && times.stamp(0) == nil)
    }

    @Test func theJournalOfAServedMomentLeavesTheDaemonsShutdownOut() throws {
        let (daemon, _, _) = try RecordFromAnyMomentTests.launcher(.noState)
        let tree = daemon.daemon.tree()
        var shutdown = Flowd_V1_Event()
        shutdown.kind = .shutdown
        let recording = Recording(tree: tree, events: [shutdown])
        let made = try ReplayedJournal.records(of: recording, app: Self.app, until: nil)
        #expect(made.inputs == 1 && made.recordedInputs == 1)
        #expect(!made.records.contains { $0.kind == FlowInput.terminateAll(animated: false).encoded.kind }, "a daemon never journals its shutdown")
    }
}
