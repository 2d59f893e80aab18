@testable import FlowDaemon
import FlowJournal
import FlowKit
import FlowdTestSupport
import Foundation
import Logging
import Testing

/// When the daemon asks for the journal's flush (`fdatasync`, off the loop): bounded in time, not in
/// commits (docs/journal.md, "Power loss"). A commit after a quiet second is flushed at once; a
/// stream of commits once a second; and the last commits of a burst at most a second after they were
/// made, by the loop's deadline, not by the kernel's writeback 30 s later.
@Suite struct JournalFlushScheduleTests {
    private func journal() throws -> DaemonJournal {
        let path = makeTemporaryDirectory() + "/flush.journal"
        let log = try Journal(path: path, identity: .init(app: "flush", appVersion: "1"))
        return DaemonJournal(journal: log, logger: Logger(label: "journal-flush-tests"))
    }

    private func commitOne(_ journal: inout DaemonJournal, at now: UInt64) {
        journal.record(.screenLost(ScreenID(rawValue: 7)), at: now)
        journal.commit(now: now)
    }

    @Test func aStreamOfCommitsIsFlushedOnceASecondAndItsTailByTheDeadline() throws {
        var journal = try journal()
        commitOne(&journal, at: 50_000)
        #expect(journal.syncDueAt == nil, "the first commit after a quiet second is flushed at once")

        // 999 commits within the next second (a count bound of 1,000 would have flushed at 1,000).
        for step in 1...999 { commitOne(&journal, at: 50_000 + UInt64(step)) }
        #expect(journal.syncDueAt == 51_000, "the commits wait for the second to end: \(String(describing: journal.syncDueAt))")

        // The burst stops: the loop's deadline asks for the flush when it is due, not before.
        journal.syncIfDue(now: 50_999)
        #expect(journal.syncDueAt == 51_000)
        journal.syncIfDue(now: 51_000)
        #expect(journal.syncDueAt == nil, "the tail of the burst is flushed a second after the last flush")

        // A commit half a second later waits for the next second; an empty iteration then flushes it.
        commitOne(&journal, at: 51_500)
        #expect(journal.syncDueAt == 52_000)
        journal.commit(now: 52_001)
        #expect(journal.syncDueAt == nil, "an iteration that commits nothing still asks for the due flush")

        // After a quiet second, at once again.
        commitOne(&journal, at: 60_000)
        #expect(journal.syncDueAt == nil)
        journal.drainSyncs()
    }
}
