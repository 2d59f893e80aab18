/// The 4-byte little-endian length prefix in front of every frame.
enum FrameHeader {
    /// Bytes in a header.
    static let size = 4

    /// Reads the length at `index` of `bytes`; the caller checks that 4 bytes are there.
    @inline(__always)
    static func length(in bytes: [UInt8], at index: Int) -> Int {
        Int(bytes[index])
            | Int(bytes[index + 1]) << 8
            | Int(bytes[index + 2]) << 16
            | Int(bytes[index + 3]) << 24
    }

    /// Appends the header for a body of `length` bytes (at most `UInt32.max`).
    @inline(__always)
    static func append(length: Int, to buffer: inout [UInt8]) {
        let value = UInt32(length)
        buffer.append(UInt8(truncatingIfNeeded: value))
        buffer.append(UInt8(truncatingIfNeeded: value >> 8))
        buffer.append(UInt8(truncatingIfNeeded: value >> 16))
        buffer.append(UInt8(truncatingIfNeeded: value >> 24))
    }
}
