@testable import FlowJournal
import FlowdTestSupport
import Foundation
import Testing

/// `EncodedBatch`, the daemon's pending records: the same bytes as `JournalBatch.encode` of the
/// records it was given, the check set on its last record (and replaced) where a commit puts it, and
/// the same file as appending the records.
@Suite struct EncodedBatchTests {
    /// Random records: kinds and keys over the whole range (negative ones take ten varint bytes),
    /// bodies from empty to 300 bytes, and checks on some.
    static func records(_ count: Int, seed: UInt64) -> [Journal.Record] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            let kind = Bool.random(using: &generator) ? Int64.random(in: 0..<70, using: &generator) : Int64.random(in: .min ... .max, using: &generator)
            let body = (0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let check: Int64? = Bool.random(using: &generator) ? Int64.random(in: .min ... .max, using: &generator) : nil
            return Journal.Record(kind: kind, body: body, key: Int64.random(in: .min ... .max, using: &generator), check: check)
        }
    }

    @Test func holdsTheBytesAndRecordsItWasGiven() {
        for seed in 0..<50 as Range<UInt64> {
            let records = Self.records(Int(seed % 20) + 1, seed: seed)
            var batch = EncodedBatch()
            for record in records { batch.append(record) }
            #expect(batch.count == records.count)
            #expect(batch.bytes == JournalBatch.encode(records))
            #expect(batch.records == records)
        }
    }

    @Test func aBodyWrittenInPlaceIsTheSameRecord() {
        var generator = SeededGenerator(seed: 11)
        for length in [0, 1, 127, 128, 129, 300, 16_383, 16_384, 70_000] {
            let body = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var written = EncodedBatch(), given = EncodedBatch()
            for _ in 0..<2 {
                written.append(kind: 7, key: -3) { $0.append(contentsOf: body) }
                given.append(kind: 7, key: -3, body: body)
            }
            #expect(written.bytes == given.bytes, "body of \(length) bytes")
            #expect(written.records == [Journal.Record(kind: 7, body: body, key: -3), Journal.Record(kind: 7, body: body, key: -3)])
        }
    }

    /// A body of a known size, written on the stack when the record fits `smallRecordRoom` and into
    /// the array when it does not: the same records either way, and a check lands on it.
    @Test func aBodyOfAKnownSizeIsTheSameRecord() {
        var generator = SeededGenerator(seed: 12)
        // Each pair's last size on the stack and first beyond it: 124/125 for (1, 0), 115/116 for
        // (7, -3), 107/108 for (.max, .min), whose key and kind take 10 and 9 bytes.
        let sizes = [0, 1, 100, 107, 108, 110, 115, 116, 124, 125, 127, 128, 129, 300, 16_384]
        for length in sizes {
            for (kind, key) in [(Int64(1), Int64(0)), (7, -3), (.max, .min)] {
                let body = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                var sized = EncodedBatch(), given = EncodedBatch()
                for _ in 0..<2 {
                    sized.append(kind: kind, key: key, bodySize: length) { room in
                        #expect(room.count == length)
                        room.copyBytes(from: body)
                    }
                    given.append(kind: kind, key: key, body: body)
                }
                #expect(sized.bytes == given.bytes, "body of \(length) bytes, kind \(kind), key \(key)")
                #expect(sized.count == 2 && !sized.lastHasCheck)
                sized.setCheckOnLast(99)
                given.setCheckOnLast(99)
                #expect(sized.bytes == given.bytes, "check on a body of \(length) bytes")
            }
        }
    }

    /// The daemon's order: inputs written in place, then the check on the last one at the commit.
    @Test func aCheckLandsOnABodyWrittenInPlace() {
        for length in [0, 5, 127, 128, 300] {
            let body = [UInt8](repeating: 0xAB, count: length)
            var batch = EncodedBatch()
            batch.append(kind: 1, key: 9) { $0.append(contentsOf: [1, 2]) }
            batch.append(kind: 1, key: -1) { $0.append(contentsOf: body) }
            batch.setCheckOnLast(-42)
            #expect(batch.records == [Journal.Record(kind: 1, body: [1, 2], key: 9),
                                      Journal.Record(kind: 1, body: body, key: -1, check: -42)], "body of \(length) bytes")
        }
    }

    @Test func anEmptiedBatchKeepsOnlyModestStorage() {
        var batch = EncodedBatch()
        batch.append(kind: 1, body: [UInt8](repeating: 1, count: 100))
        batch.removeAll()
        #expect(batch.bytes.capacity >= 100)
        batch.append(kind: 1, body: [UInt8](repeating: 1, count: EncodedBatch.retainedCapacity + 1))
        batch.removeAll()
        #expect(batch.bytes.capacity <= EncodedBatch.retainedCapacity)
    }

    @Test func aCheckIsSetOnTheLastRecordAndReplaced() {
        var records = Self.records(5, seed: 7)
        records[4].check = nil
        var batch = EncodedBatch()
        for record in records { batch.append(record) }
        #expect(!batch.lastHasCheck)
        for check in [Int64(0), -1, 1 << 40, 5, .min, .max] {
            batch.setCheckOnLast(check)
            records[4].check = check
            #expect(batch.lastHasCheck)
            #expect(batch.records == records)
            #expect(batch.bytes == JournalBatch.encode(records))
        }
        batch.append(kind: 3, body: [1, 2])
        #expect(!batch.lastHasCheck)
        #expect(batch.records == records + [Journal.Record(kind: 3, body: [1, 2])])
        batch.removeAll()
        #expect(batch.isEmpty && batch.bytes.isEmpty && batch.records.isEmpty)
    }

    @Test func appendingABatchWritesWhatAppendingItsRecordsWrites() throws {
        let records = Self.records(40, seed: 3)
        let (first, second) = (makeTemporaryDirectory() + "/a.journal", makeTemporaryDirectory() + "/b.journal")
        do {
            let identity = Journal.Identity(app: "launcher", appVersion: "1")
            let byRecords = try Journal(path: first, identity: identity)
            let byBatch = try Journal(path: second, identity: identity)
            for part in [records[..<10], records[10..<11], records[11...]] {
                try byRecords.append(Array(part))
                var batch = EncodedBatch()
                for record in part { batch.append(record) }
                try byBatch.append(batch)
            }
            try byBatch.append(EncodedBatch())  // an empty batch writes nothing
            #expect(try byBatch.records() == records)
            #expect(try byBatch.count() == records.count)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: first)) == Data(contentsOf: URL(fileURLWithPath: second)))
    }
}
