@testable import FlowJournal
import FlowdTestSupport
import Foundation
import Testing

/// A journal whose commits are memory copies into a mapped segment allocated ahead (`mapsAhead`, what
/// the daemon writes: docs/journal.md, "A commit is a memory copy"): the same file, read by the same
/// rules, with zeros after its frames while it is open.
@Suite struct MappedJournalTests {
    static let identity = JournalTests.identity

    static func bytes(_ path: String) throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) }

    /// The records of batches `range`, five to a batch.
    static func batch(_ index: Int) -> [Journal.Record] { (index * 5..<(index + 1) * 5).map(JournalTests.record) }

    @Test func aCommitIsInTheFileAtOnceAndTheFileEndsInZerosAllocatedAhead() throws {
        let path = JournalTests.path()
        let journal = try Journal(path: path, identity: Self.identity, mapsAhead: true)
        for index in 0..<3 {
            try journal.append(Self.batch(index))
            // Read through the file (another descriptor, no msync): the page the copy went to is the file's.
            let file = try Self.bytes(path)
            let offsets = try #require(logFrameOffsets(file))
            #expect(offsets.count == index + 2, "a frame per batch")
            #expect(offsets.last == journal.size)
            #expect(file.count > journal.size, "allocated ahead")
            #expect(file.count % MappedSegment.pageBytes == 0)
            #expect(onlyZeros(file, from: journal.size))
            let (_, last) = try Journal.lastRecord(ofKind: JournalTests.record(index * 5 + 4).kind, at: path)
            #expect(last != nil, "a reader without the lock reads the frames and stops at the zeros")
        }
        #expect(journal.tornBytes == 0, "the zeros allocated ahead are not a torn write")
    }

    @Test func closedTheFileIsItsFramesAgain() throws {
        let path = JournalTests.path()
        do {
            let journal = try Journal(path: path, identity: Self.identity, mapsAhead: true)
            for index in 0..<4 { try journal.append(Self.batch(index)) }
        }
        let file = try Self.bytes(path)
        #expect(logFrameOffsets(file)?.last == file.count, "cut back to the last frame when closed")
        let reopened = try Journal(path: path, identity: Self.identity)
        #expect(try reopened.records() == (0..<4).flatMap(Self.batch))
        #expect(reopened.tornBytes == 0)
    }

    /// What a killed writer leaves: the frames, then zeros. They open as the frames, the zeros count as
    /// torn bytes (all zero), opening writes nothing, and the next writer appends right after the frames.
    @Test func aKilledWritersFileOpensAtItsFramesAndTheNextWriterGoesOnAfterThem() throws {
        let path = JournalTests.path()
        let journal = try Journal(path: path, identity: Self.identity, mapsAhead: true)
        for index in 0..<6 { try journal.append(Self.batch(index)) }
        let crashed = try Self.bytes(path)
        let frames = journal.size
        let copy = makeTemporaryDirectory() + "/killed.journal"
        try Data(crashed).write(to: URL(fileURLWithPath: copy))
        do {
            let reopened = try Journal(path: copy, identity: Self.identity, mapsAhead: true)
            #expect(reopened.tornBytes == crashed.count - frames)
            #expect(reopened.tornBytesAreZeros)
            #expect(try reopened.records() == (0..<6).flatMap(Self.batch))
            #expect(try Self.bytes(copy) == crashed, "opening and reading write nothing")
            try reopened.append(Self.batch(6))
            let file = try Self.bytes(copy)
            let offsets = try #require(logFrameOffsets(file))
            #expect(offsets.count == 8, "the new frame right after the six")
            #expect(onlyZeros(file, from: offsets.last!))
            // Killed again, with zeros after the seventh frame: the third writer goes on after it.
            try Data(file).write(to: URL(fileURLWithPath: copy + ".again"))
        }
        let third = try Journal(path: copy + ".again", identity: Self.identity, mapsAhead: true)
        #expect(try third.records() == (0..<7).flatMap(Self.batch))
        try third.append(Self.batch(7))
        #expect(try third.records() == (0..<8).flatMap(Self.batch))
    }

    /// A killed writer's file cut at every byte (a power cut keeps any prefix of it), then grown by the
    /// zeros of a page allocated ahead: whole batches in order, and the write after goes on.
    @Test func aKilledWritersFileCutAnywhereAndEndingInZerosHoldsWholeBatches() throws {
        let path = JournalTests.path()
        let journal = try Journal(path: path, identity: Self.identity, mapsAhead: true)
        for index in 0..<6 { try journal.append(Self.batch(index)) }
        let crashed = try Self.bytes(path)
        let offsets = try #require(logFrameOffsets(crashed))
        let directory = makeTemporaryDirectory()
        var seen: Set<Int> = []
        for cut in offsets[0]...offsets.last! {
            let copy = directory + "/cut.journal"
            try Data(crashed.prefix(cut) + [UInt8](repeating: 0, count: 4_096)).write(to: URL(fileURLWithPath: copy))
            let reopened = try Journal(path: copy, identity: Self.identity, mapsAhead: true)
            let records = try reopened.records()
            #expect(records.count % 5 == 0 && records == (0..<(records.count / 5)).flatMap(Self.batch), "cut at \(cut)")
            seen.insert(records.count / 5)
            guard cut % 11 == 0 else { continue }
            try reopened.append([JournalTests.record(1_000)])
            #expect(try reopened.records() == records + [JournalTests.record(1_000)], "cut at \(cut)")
        }
        #expect(seen == Set(0...6))
    }

    /// Far more than one allocation ahead, and remapped: every batch back in order, and the file grew
    /// by at most an eighth (or a page) beyond its frames.
    @Test func manyCommitsGrowTheSegmentAndReadBackInOrder() throws {
        let path = JournalTests.path()
        let journal = try Journal(path: path, identity: Self.identity, mapsAhead: true)
        for index in 0..<3_000 { try journal.append([JournalTests.record(index)]) }
        let file = try Self.bytes(path)
        #expect(file.count - journal.size <= max(MappedSegment.leastAhead, journal.size / 8) + 2 * MappedSegment.pageBytes)
        #expect(try journal.records() == (0..<3_000).map(JournalTests.record))
        let offsets = try #require(logFrameOffsets(file))
        #expect(offsets.count == 3_001)
    }

    /// A compaction rewrites the file (a new one renamed over it) and the next commits map the new
    /// file; a cleared journal maps again after its header; a journal moved aside keeps its bytes.
    @Test func compactionClearingAndMovingAsideKeepWorking() throws {
        let path = JournalTests.path()
        do {
            let journal = try Journal(path: path, identity: Self.identity, mapsAhead: true)
            for index in 0..<5 { try journal.append(Self.batch(index)) }
            try journal.rewrite([JournalTests.record(100)])
            #expect(try journal.records() == [JournalTests.record(100)])
            try journal.append(Self.batch(5))
            let file = try Self.bytes(path)
            #expect(logFrameOffsets(file)?.count == 3, "the checkpoint's frame and the new one")
            #expect(onlyZeros(file, from: journal.size))
            #expect(try journal.records() == [JournalTests.record(100)] + Self.batch(5))
        }
        var file = try Self.bytes(path)
        #expect(logFrameOffsets(file)?.last == file.count)
        do {
            let journal = try Journal(path: path, identity: Self.identity, mapsAhead: true)
            try journal.clear()
            #expect(try journal.records().isEmpty)
            try journal.append(Self.batch(9))
            #expect(try journal.records() == Self.batch(9))
            file = try Self.bytes(path)
            #expect(logFrameOffsets(file)?.count == 2)
        }
        // Killed (the zeros kept), then moved aside: the file is kept as it was, and reads.
        try Data(file).write(to: URL(fileURLWithPath: path))
        let aside = try Journal.moveAside(path)
        #expect(try Self.bytes(aside) == file)
        #expect(try Journal(path: aside, identity: Self.identity).records() == Self.batch(9))
    }

    /// A flush write-protects the pages it writes back; the flush request faults those the next
    /// commits copy into back in, writable, so a commit's copy takes no page fault. Counted on this
    /// thread alone (`RUSAGE_THREAD`: the suite's other tests run on other threads), in 8 commits of a
    /// page each that grow the file by nothing (growing it faults the pages allocated ahead in).
    @Test func aCommitAfterAFlushTakesNoPageFault() throws {
        let path = JournalTests.path()
        let journal = try Journal(path: path, identity: Self.identity, mapsAhead: true)
        // 4 MiB of frames, so that half a MiB is allocated ahead at a time.
        let record = Journal.Record(kind: 1, body: [UInt8](repeating: 7, count: 4_000))
        for _ in 0..<1_024 { try journal.append([record]) }
        /// The page faults of 8 commits, from the first 8 that leave the file's size as it was.
        func faultsOfEightCommits() throws -> Int {
            while true {
                let size = try Self.bytes(path).count
                let before = Self.threadMinorFaults()
                for _ in 0..<8 { try journal.append([record]) }
                let faults = Self.threadMinorFaults() - before
                if try Self.bytes(path).count == size { return faults }
            }
        }
        #expect(try faultsOfEightCommits() <= 1, "pages allocated ahead are faulted in when allocated")
        let sync = try #require(journal.syncRequest())
        sync.run()
        let faults = try faultsOfEightCommits()
        #expect(faults <= 1, "\(faults) page faults in 8 commits of a page after a flush")
        #expect(try journal.records().count >= 1_040)
    }

    static func threadMinorFaults() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(1), &usage)  // RUSAGE_THREAD (Linux), not in Swift's Glibc module
        return usage.ru_minflt
    }
}
