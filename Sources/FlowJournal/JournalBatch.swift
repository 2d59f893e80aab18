/// The bytes of one journal row (schema 2): the records of one batch, one after another, each
/// `kind, key, check tag [, check], body length, body` in unsigned LEB128 varints (signed values as
/// their bit patterns; the check tag 0 says there is none, 1 that it follows). One row per batch
/// instead of one per input: under load a loop iteration holds hundreds of inputs, and a B-tree
/// insert per input was most of the journal's cost (docs/journal.md, "What a commit costs").
package enum JournalBatch {
    /// The records' bytes, in order.
    static func encode(_ records: some Collection<Journal.Record>) -> [UInt8] {
        var bytes: [UInt8] = []
        encode(records, into: &bytes)
        return bytes
    }

    /// Appends the records' bytes to `bytes`.
    static func encode(_ records: some Collection<Journal.Record>, into bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + records.reduce(0) { $0 + $1.body.count + 8 })
        for record in records {
            appendVarint(UInt64(bitPattern: record.kind), to: &bytes)
            appendVarint(UInt64(bitPattern: record.key), to: &bytes)
            if let check = record.check {
                bytes.append(1)
                appendVarint(UInt64(bitPattern: check), to: &bytes)
            } else {
                bytes.append(0)
            }
            appendVarint(UInt64(record.body.count), to: &bytes)
            bytes.append(contentsOf: record.body)
        }
    }

    /// Reads `count` records out of `bytes`, calling `body` with each until it returns false; nil
    /// when the bytes are not `count` whole records (a damaged row whose checksum still matched),
    /// found before any record is given. Returns whether `body` asked to go on.
    static func decode(_ bytes: ArraySlice<UInt8>, count: Int, _ body: (Journal.Record) -> Bool) -> Bool? {
        // The whole row first: a damaged row gives none of its records.
        var records: [Journal.Record] = []
        records.reserveCapacity(min(count, bytes.count))
        var reader = Reader(bytes: bytes)
        for _ in 0..<count {
            guard let kind = reader.varint(), let key = reader.varint(), let tag = reader.byte() else { return nil }
            var check: Int64?
            switch tag {
            case 0: check = nil
            case 1:
                guard let value = reader.varint() else { return nil }
                check = Int64(bitPattern: value)
            default: return nil
            }
            guard let length = reader.varint(), let payload = reader.bytes(length) else { return nil }
            records.append(Journal.Record(kind: Int64(bitPattern: kind), body: payload, key: Int64(bitPattern: key), check: check))
        }
        guard reader.atEnd else { return nil }
        for record in records {
            guard body(record) else { return false }
        }
        return true
    }

    /// A batch's checksum (FNV-1a over its sequence number, its record count and its bytes): a frame
    /// (or an SQLite page) torn by a power cut reads as other bytes.
    static func sum(seq: Int64, count: Int64, bytes: [UInt8]) -> Int64 {
        bytes.withUnsafeBufferPointer { sum(seq: seq, count: count, bytes: $0) }
    }

    static func sum(seq: Int64, count: Int64, bytes: UnsafeBufferPointer<UInt8>) -> Int64 {
        var hash = FNV1a()
        hash.mix(seq)
        hash.mix(count)
        for byte in bytes { hash.mix(byte) }
        return Int64(bitPattern: hash.value)
    }

    /// The bytes of `value` as a varint.
    package static func varintSize(_ value: UInt64) -> Int {
        value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
    }

    /// Writes `value` as a varint into `room` at `offset` (which has room for it); returns the offset after it.
    package static func writeVarint(_ value: UInt64, into room: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        var value = value, at = offset
        while value >= 0x80 {
            room[at] = UInt8(truncatingIfNeeded: value) | 0x80
            value >>= 7
            at += 1
        }
        room[at] = UInt8(value)
        return at + 1
    }

    package static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Reads varints and byte strings from the front of `bytes`.
    package struct Reader {
        let bytes: ArraySlice<UInt8>
        package var offset: Int

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            offset = bytes.startIndex
        }

        package init(bytes: [UInt8]) { self.init(bytes: bytes[...]) }

        package var atEnd: Bool { offset == bytes.endIndex }

        mutating func byte() -> UInt8? {
            guard offset < bytes.endIndex else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        package mutating func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while let byte = byte() {
                guard shift < 64 else { return nil }
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            return nil
        }

        package mutating func bytes(_ count: UInt64) -> [UInt8]? {
            guard count <= UInt64(bytes.endIndex - offset) else { return nil }
            let end = offset + Int(count)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }
    }
}

/// 64-bit FNV-1a, the journal's row checksum (and the default journal's name for a socket,
/// `StatePath`): the same in every process, unlike Swift's `Hasher`.
package struct FNV1a {
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    package mutating func mix(_ byte: UInt8) { value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }

    package mutating func mix(_ word: Int64) {
        for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: word >> shift)) }
    }
}
