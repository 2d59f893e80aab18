import Foundation

// Protobuf's binary wire form, read and written by hand where swift-protobuf's generated code is
// too slow for a hot path: FlowWire's FastCodec (the daemon's frames) and payload types' fast codecs
// (FlowProtobuf re-exports this module; docs/flows.md, "Fast payload codecs"). Each such codec
// declines to swift-protobuf on what it does not handle, and a fuzz target proves the two equal.

/// The wire types a fast codec reads; groups (3, 4) are declined.
public enum ProtobufWireType: UInt8, Sendable {
    /// int32, int64, uint32, uint64, sint32, sint64, bool, enum.
    case varint = 0
    /// fixed64, sfixed64, double.
    case fixed64 = 1
    /// string, bytes, messages, packed repeated fields.
    case lengthDelimited = 2
    /// fixed32, sfixed32, float.
    case fixed32 = 5
}

/// A cursor over a protobuf message's bytes. Every read checks bounds and returns nil for bytes that
/// are not what was asked for; a codec declines on nil.
public struct ProtobufReader {
    @usableFromInline let bytes: UnsafeRawBufferPointer
    @usableFromInline var index: Int
    /// The offset of the next byte to read.
    @inlinable public var offset: Int { index }

    /// A reader at the start of `bytes`, which must outlive it.
    @inlinable public init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        self.index = 0
    }

    /// True when every byte has been read.
    @inlinable public var isAtEnd: Bool { index >= bytes.count }

    /// A base-128 varint of at most 10 bytes; nil if it runs past the end or overflows 64 bits.
    @inlinable @inline(__always) public mutating func varint() -> UInt64? {
        // One byte, inline: most keys, lengths and small numbers (a call each cost ~24 instructions,
        // ~15 per output in `flowd-echo`, callgrind).
        if index < bytes.count, bytes[index] < 0x80 {
            index += 1
            return UInt64(bytes[index - 1])
        }
        return longVarint()
    }

    /// `varint()` past its one-byte case.
    @inlinable @inline(never) mutating func longVarint() -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while index < bytes.count, shift < 64 {
            let byte = bytes[index]
            index += 1
            if shift == 63 && byte > 1 { return nil }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }

    /// A field's key: its number (1 through 2^29 − 1) and wire type; nil for a malformed key (see
    /// `tag()`), field number 0, or a group's wire type (3 and 4, which a fast codec declines).
    @inlinable public mutating func key() -> (field: Int, wire: ProtobufWireType)? {
        guard let key = tag(), let wire = ProtobufWireType(rawValue: UInt8(key.wire))
        else { return nil }
        return (Int(key.field), wire)
    }

    /// A field's key as two numbers, the wire type unchecked; nil for a malformed key or field number 0.
    /// A key is at most 5 bytes and 32 bits, as swift-protobuf reads it: a longer encoding of the same
    /// number is malformed there.
    @inlinable public mutating func tag() -> (field: UInt64, wire: UInt64)? {
        let start = index
        guard let tag = varint(), index - start <= 5, tag <= UInt64(UInt32.max), tag >> 3 != 0 else { return nil }
        return (tag >> 3, tag & 7)
    }

    /// A length-delimited field's bytes (after its key); nil if the length runs past the end or is
    /// 2 GiB or more (which swift-protobuf refuses).
    @inlinable @inline(__always) public mutating func lengthDelimited() -> UnsafeRawBufferPointer? {
        guard let length = varint(), length < 0x7FFF_FFFF, length <= UInt64(bytes.count - index) else { return nil }
        let start = index
        index += Int(length)
        // The range was checked against the count just above: the base plus the offset, without the
        // slice's own checks (a call of ~45 instructions, four per output in `flowd-echo`, callgrind).
        return UnsafeRawBufferPointer(start: bytes.baseAddress.map { $0 + start }, count: Int(length))
    }

    /// A reader over a length-delimited field's bytes (a message field's message).
    @inlinable @inline(__always) public mutating func submessage() -> ProtobufReader? {
        guard let bytes = lengthDelimited() else { return nil }
        return ProtobufReader(bytes)
    }

    /// A length-delimited field's bytes as a string; nil if they are not valid UTF-8 (as
    /// swift-protobuf refuses them).
    @inlinable public mutating func string() -> String? {
        guard let bytes = lengthDelimited() else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Steps over the value of a field the codec does not know (after its key); false if it is
    /// malformed. Unknown fields are skipped, as the Swift value has nowhere to keep them.
    @inlinable public mutating func skip(_ wire: ProtobufWireType) -> Bool {
        switch wire {
        case .varint: return varint() != nil
        case .lengthDelimited: return lengthDelimited() != nil
        case .fixed64, .fixed32:
            let size = wire == .fixed64 ? 8 : 4
            guard bytes.count - index >= size else { return false }
            index += size
            return true
        }
    }
}

/// Writes a protobuf message into a buffer of the exact size computed first with the static
/// `…Size` functions (one allocation, no intermediate message). Fields go in ascending number
/// order, as swift-protobuf writes them, so the bytes are the same. Not copyable: it points into a
/// buffer that lives only during `message(size:_:)`, so it cannot be kept past it.
public struct ProtobufWriter: ~Copyable {
    @usableFromInline let buffer: UnsafeMutableRawBufferPointer
    @usableFromInline var index = 0
    /// The offset of the next byte to write.
    @inlinable public var offset: Int { index }

    @usableFromInline init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

    /// A message of `size` bytes written by `write`, which must write exactly `size` bytes.
    ///
    /// A small message is written on the stack and becomes a `Data` with one copy: `Data(count:)` and
    /// `withUnsafeMutableBytes` went through `Data`'s representations twice (~0.12 k instructions for
    /// the demo card's state, callgrind `flowd-echo`).
    @inlinable public static func message(size: Int, _ write: (inout ProtobufWriter) -> Void) -> Data {
        guard size <= smallMessageRoom else {
            var data = Data(count: size)
            data.withUnsafeMutableBytes { bytes in
                var writer = ProtobufWriter(bytes)
                write(&writer)
                precondition(writer.index == size, "a fast codec wrote \(writer.index) bytes of the \(size) it computed")
            }
            return data
        }
        return withUnsafeTemporaryAllocation(byteCount: smallMessageRoom, alignment: 1) { room in
            var writer = ProtobufWriter(UnsafeMutableRawBufferPointer(rebasing: room[..<size]))
            write(&writer)
            precondition(writer.index == size, "a fast codec wrote \(writer.index) bytes of the \(size) it computed")
            return size == 0 ? Data() : Data(bytes: room.baseAddress!, count: size)
        }
    }

    /// The largest message `message(size:_:)` writes on the stack.
    @inlinable static var smallMessageRoom: Int { 256 }

    /// The bytes of `value` as a varint.
    @inlinable public static func varintSize(_ value: UInt64) -> Int {
        // 1 byte per 7 bits, at least 1.
        (64 - value.leadingZeroBitCount + 6) / 7 + (value == 0 ? 1 : 0)
    }

    /// The bytes of a length-delimited field `field` holding `length` bytes: key, length, bytes.
    @inlinable public static func lengthDelimitedSize(field: Int, length: Int) -> Int {
        varintSize(UInt64(field) << 3) + varintSize(UInt64(length)) + length
    }

    /// The bytes of a string field holding `value`.
    @inlinable public static func stringSize(field: Int, _ value: String) -> Int {
        lengthDelimitedSize(field: field, length: value.utf8.count)
    }

    /// The bytes of a varint field holding `value`.
    @inlinable public static func varintFieldSize(field: Int, _ value: UInt64) -> Int {
        varintSize(UInt64(field) << 3) + varintSize(value)
    }

    /// Writes `value` as a varint.
    ///
    /// Inlined, with a byte's case first: keys and lengths are mostly one byte, and as a call each
    /// cost ~32 instructions (four per string field: ~0.16 k a field, callgrind `flowd-echo`).
    @inline(__always) @inlinable public mutating func varint(_ value: UInt64) {
        if value < 0x80, index < buffer.count {
            buffer[index] = UInt8(truncatingIfNeeded: value)
            index += 1
            return
        }
        longVarint(value)
    }

    /// `varint` of a value of two bytes or more, or past the end (which traps).
    @inlinable mutating func longVarint(_ value: UInt64) {
        precondition(buffer.count - index >= ProtobufWriter.varintSize(value), "a fast codec writes past the size it computed")
        var value = value
        while value >= 0x80 {
            buffer[index] = UInt8(truncatingIfNeeded: value) | 0x80
            index += 1
            value >>= 7
        }
        buffer[index] = UInt8(value)
        index += 1
    }

    /// Writes a field's key; `field` is 1 through 2^29 − 1.
    @inline(__always) @inlinable public mutating func key(_ field: Int, _ wire: ProtobufWireType) {
        precondition(field > 0 && field <= 0x1FFF_FFFF, "field number \(field) is not 1 through 2^29 - 1")
        varint(UInt64(field) << 3 | UInt64(wire.rawValue))
    }

    /// Writes a varint field (whatever its value: the caller leaves out proto3's zero defaults).
    @inlinable public mutating func varintField(_ field: Int, _ value: UInt64) {
        key(field, .varint)
        varint(value)
    }

    /// Writes a string field (whatever its value: the caller leaves out proto3's empty defaults).
    @inlinable public mutating func stringField(_ field: Int, _ value: String) {
        // A native string's bytes in place; a copy of the string (`var`, `withUTF8`) only for one
        // whose UTF-8 is not contiguous (a lazily bridged string, on platforms that have them).
        let written: Void? = value.utf8.withContiguousStorageIfAvailable { utf8 in
            bytesField(field, UnsafeRawBufferPointer(utf8))
        }
        guard written == nil else { return }
        var value = value
        value.withUTF8 { bytesField(field, UnsafeRawBufferPointer($0)) }
    }

    /// Writes a length-delimited field holding `bytes`.
    @inline(__always) @inlinable public mutating func bytesField(_ field: Int, _ bytes: UnsafeRawBufferPointer) {
        key(field, .lengthDelimited)
        varint(UInt64(bytes.count))
        precondition(buffer.count - index >= bytes.count, "a fast codec writes past the size it computed")
        if let source = bytes.baseAddress, !bytes.isEmpty {
            (buffer.baseAddress! + index).copyMemory(from: source, byteCount: bytes.count)
        }
        index += bytes.count
    }

    /// Writes the key and length of a message field of `size` bytes; its fields follow.
    @inlinable public mutating func messageHeader(_ field: Int, size: Int) {
        key(field, .lengthDelimited)
        varint(UInt64(size))
    }
}
