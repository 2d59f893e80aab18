/// Where each frame of a journal log starts, and where the last whole one ends, read the way
/// docs/journal.md lays the file out (a 16-byte fixed header, the identity and an 8-byte checksum;
/// frames of a 24-byte header and their records); nil when `bytes` is not a log. A header that says
/// its frame holds no record is not a frame: the zeros a mapped journal allocates ahead end the
/// frames there. Tests cut and damage logs at these offsets.
public func logFrameOffsets(_ bytes: [UInt8]) -> [Int]? {
    guard bytes.count >= 16, Array(bytes.prefix(8)) == Array("FLOWDLOG".utf8) else { return nil }
    func number(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
    var offset = 16 + number(12) + 8
    var offsets = [offset]
    while offset + 24 <= bytes.count, number(offset + 4) > 0, offset + 24 + number(offset) <= bytes.count {
        offset += 24 + number(offset)
        offsets.append(offset)
    }
    return offsets
}


/// Whether `bytes` holds nothing but zeros from `offset` on: the end of a log whose writer was killed
/// with space allocated ahead of its frames (docs/journal.md, "A commit is a memory copy").
public func onlyZeros(_ bytes: [UInt8], from offset: Int) -> Bool {
    offset <= bytes.count && bytes[offset...].allSatisfy { $0 == 0 }
}
