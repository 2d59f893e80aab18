#if canImport(Glibc)
import Glibc
#endif

/// The records of one batch, encoded as they are added, in `JournalBatch`'s layout: what the
/// daemon keeps between a loop iteration's inputs and its commit. An input's body is written in
/// place (`append(kind:key:writingBody:)`), so it costs no array of its own, and the commit writes
/// these bytes as they are: a `[Journal.Record]` had cost an allocation, a copy and a destruction per
/// input (~0.8 k instructions per output in `flowd-echo`, callgrind).
public struct EncodedBatch: Sendable {
    /// The records' bytes, in order.
    public private(set) var bytes: [UInt8] = []
    /// How many records it holds.
    public private(set) var count = 0
    /// Where the last record's check tag is (its bytes after it are its length and body), or nil.
    private var lastTag: Int?
    /// Whether the last record has a check.
    public private(set) var lastHasCheck = false

    public init() {}

    public var isEmpty: Bool { count == 0 }

    /// Adds a record without a check.
    public mutating func append(kind: Int64, key: Int64 = 0, body: [UInt8]) {
        append(kind: kind, key: key) { $0.append(contentsOf: body) }
    }

    /// Adds a record without a check whose body is `bodySize` bytes, which `write` puts at the start of
    /// the room it is given. A record of up to `smallRecordRoom` bytes (an output's, a tap's) is written
    /// on the stack and appended with one copy: through `append(kind:key:writingBody:)` each varint's
    /// and each byte's `append` checked the array's uniqueness and capacity again (0.45 k instructions
    /// per output, callgrind `flowd-echo`, against 0.2 k).
    public mutating func append(kind: Int64, key: Int64 = 0, bodySize: Int, writingBody write: (UnsafeMutableRawBufferPointer) -> Void) {
        let kind = UInt64(bitPattern: kind), key = UInt64(bitPattern: key)
        let head = JournalBatch.varintSize(kind) + JournalBatch.varintSize(key) + 1
        let size = head + JournalBatch.varintSize(UInt64(bodySize)) + bodySize
        guard size <= Self.smallRecordRoom else {
            append(kind: Int64(bitPattern: kind), key: Int64(bitPattern: key)) { bytes in
                let start = bytes.count
                bytes.append(contentsOf: repeatElement(0, count: bodySize))
                bytes.withUnsafeMutableBytes { write(UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
            }
            return
        }
        withUnsafeTemporaryAllocation(byteCount: Self.smallRecordRoom, alignment: 1) { room in
            var at = JournalBatch.writeVarint(kind, into: room, at: 0)
            at = JournalBatch.writeVarint(key, into: room, at: at)
            room[at] = 0  // no check
            at = JournalBatch.writeVarint(UInt64(bodySize), into: room, at: at + 1)
            write(UnsafeMutableRawBufferPointer(rebasing: room[at ..< at + bodySize]))
            lastTag = bytes.count + head - 1
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: room[..<size]))
        }
        count += 1
        lastHasCheck = false
    }

    /// The largest record `append(kind:key:bodySize:writingBody:)` writes on the stack.
    public static var smallRecordRoom: Int { 128 }

    /// Adds a record without a check whose body `write` appends to the bytes it is given (and
    /// nothing else): written in place, its length put before it afterwards.
    public mutating func append(kind: Int64, key: Int64 = 0, writingBody write: (inout [UInt8]) -> Void) {
        JournalBatch.appendVarint(UInt64(bitPattern: kind), to: &bytes)
        JournalBatch.appendVarint(UInt64(bitPattern: key), to: &bytes)
        lastTag = bytes.count
        bytes.append(0)
        // One byte for the length, which a body under 128 bytes needs; a longer one moves over.
        let lengthAt = bytes.count
        bytes.append(0)
        write(&bytes)
        let length = bytes.count - lengthAt - 1
        if length < 0x80 {
            bytes[lengthAt] = UInt8(length)
        } else {
            writeVarint(UInt64(length), over: lengthAt ..< lengthAt + 1)
        }
        count += 1
        lastHasCheck = false
    }

    /// Adds `record` as it is, its check included.
    public mutating func append(_ record: Journal.Record) {
        append(kind: record.kind, key: record.key, body: record.body)
        if let check = record.check { setCheckOnLast(check) }
    }

    /// Gives the last record `check` (replacing one it had). Moves only that record's bytes.
    public mutating func setCheckOnLast(_ check: Int64) {
        guard let lastTag else { preconditionFailure("a check is set on a record: the batch holds none") }
        // The old tag and check: 1 byte, plus the check's varint when it had one.
        var oldEnd = lastTag + 1
        if lastHasCheck {
            while bytes[oldEnd] & 0x80 != 0 { oldEnd += 1 }
            oldEnd += 1
        }
        bytes[lastTag] = 1
        writeVarint(UInt64(bitPattern: check), over: lastTag + 1 ..< oldEnd)
        lastHasCheck = true
    }

    /// Writes `value` as a varint where `range` is, in place, moving the bytes after it when the
    /// sizes differ. A scratch array for the varint, allocated and grown on every commit's check,
    /// cost ~1 k instructions per commit (`flowd-relay` commits once per output, callgrind).
    private mutating func writeVarint(_ value: UInt64, over range: Range<Int>) {
        let size = JournalBatch.varintSize(value)
        if size > range.count {
            // Grown at the end with one append, the bytes after `range` moved over by hand:
            // `replaceSubrange` cost ~0.25 k instructions per commit (callgrind `flowd-relay`).
            let grow = size - range.count
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 10) { room in
                room.initialize(repeating: 0)
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: room[..<grow]))
            }
            let tail = bytes.count - grow - range.upperBound
            bytes.withUnsafeMutableBufferPointer { buffer in
                let base = buffer.baseAddress!
                _ = memmove(base + range.upperBound + grow, base + range.upperBound, tail)  // overlapping
            }
        } else if size < range.count {
            bytes.replaceSubrange(range, with: repeatElement(0, count: size))
        }
        var rest = value
        var index = range.lowerBound
        while rest >= 0x80 {
            bytes[index] = UInt8(truncatingIfNeeded: rest) | 0x80
            rest >>= 7
            index += 1
        }
        bytes[index] = UInt8(rest)
    }

    /// Above this capacity an emptied batch releases its storage (after a long write outage or a large
    /// output) instead of keeping it for the next.
    public static let retainedCapacity = 64 * 1024

    /// Forgets every record, keeping the storage for the next batch unless it grew past
    /// `retainedCapacity`.
    public mutating func removeAll() {
        if bytes.capacity > Self.retainedCapacity { bytes = [] } else { bytes.removeAll(keepingCapacity: true) }
        count = 0
        lastTag = nil
        lastHasCheck = false
    }

    /// The records, decoded (for the cold paths: a recording's start, a checkpoint's read).
    public var records: [Journal.Record] {
        var records: [Journal.Record] = []
        records.reserveCapacity(count)
        let whole = JournalBatch.decode(bytes[...], count: count) { records.append($0); return true }
        precondition(whole == true, "an encoded batch reads back as the records it was given")
        return records
    }
}
