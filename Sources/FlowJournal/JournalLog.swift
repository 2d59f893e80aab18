#if canImport(Glibc)
import Glibc
#endif

/// The journal's file (schema 3, docs/journal.md "The file"): a header that says whose it is, then one
/// frame per batch, appended with one `pwritev` and never rewritten. A commit costs one system call
/// where an SQLite transaction cost eight (docs/performance.md).
///
///     header: "FLOWDLOG", schema (u32), identity length (u32), identity, FNV-1a of all before (u64)
///     frame:  records length (u32), record count (u32), sequence number (u64), checksum (u64), records
///
/// Integers are little-endian; the identity is the app and its version, each a LEB128 length and
/// UTF-8; the records and the checksum are `JournalBatch`'s. A frame that is cut short or fails its
/// checksum at the end of the file is a torn write (a crash or power cut while appending): the frames
/// before it are the journal, and the first write cuts it away. A bad frame with a good one after it
/// is damage: the file is refused and kept.
final class JournalLog {
    static let magic = Array("FLOWDLOG".utf8)
    static let frameHeaderBytes = 24
    /// Where the fixed part of the header ends (magic, schema, identity length).
    static let fixedHeaderBytes = 16
    /// The largest identity a header may say it holds (anything larger is not a header we wrote).
    static let maxIdentityBytes = 1 << 16

    let path: String
    /// The open file (read and write), owned by this log.
    let descriptor: Int32
    /// Where the first frame starts.
    private let headerBytes: Int
    /// Where the whole frames end: the next frame goes here.
    private var end: Int
    /// The file's size; bytes past `end` are a torn frame, cut away at the first write.
    private var size: Int
    /// The sequence number the next frame gets.
    private(set) var nextSeq: Int64 = 1
    /// The records in the whole frames.
    private(set) var count = 0
    /// The records of the next frame written from `Journal.Record`s, kept between commits so that a commit allocates nothing.
    private var frame: [UInt8] = []
    /// Whether a frame is copied into a mapped segment allocated ahead (`MappedSegment`) rather than
    /// written with `pwritev`: what the daemon's commits do (docs/journal.md, "A commit is a memory copy").
    var mapsAhead = false
    /// The mapped end of the file while `mapsAhead` (nil until the first frame, and after a cut).
    private var segment: MappedSegment?
    /// Frames still written with `pwritev` after the file could not be mapped or allocated ahead
    /// (a full disk, a file size limit, a file system without `mmap`): tried again after these.
    private var unmappedFrames = 0
    static let framesBeforeMappingAgain = 1_024

    /// Where the frames ended at the last `syncRequest()`: the bytes since are what a flush's interval holds.
    private var endAtLastSync = 0

    /// What flushes this log from another thread (`JournalSync`): with a mapped segment, it then faults
    /// back in, writable, the pages that as many bytes as since the last request will fill (a page
    /// to `MappedSegment.mostAhead`), which the flush write-protected. Once per flush.
    func syncRequest() -> JournalSync {
        let written = end - endAtLastSync
        endAtLastSync = end
        guard let segment,
              let pages = segment.pages(from: end, bytes: min(MappedSegment.mostAhead, max(MappedSegment.leastAhead, written)))
        else { return JournalSync(descriptor: descriptor, rearm: nil) }
        return JournalSync(descriptor: descriptor, rearm: (segment, pages))
    }

    /// Bytes after the last whole frame when the file was opened: a torn write that the first
    /// append cuts away (0: none). The zeros a mapped segment allocates ahead are not counted.
    var tornBytes: Int { segment == nil ? size - end : 0 }
    /// Whether the torn bytes are all zeros (and there are some). Reads them.
    var tornBytesAreZeros: Bool {
        guard tornBytes > 0 else { return false }
        var reader = FileReader(descriptor: descriptor, size: size, path: path)
        do { return try reader.lastNonzeroByte(from: end) == nil } catch { return false }
    }
    /// The bytes of the header and the whole frames.
    var byteCount: Int { end }

    /// Opens the log in `descriptor` (taking it over): checks its header against `identity`, then
    /// every frame. Throws, changing nothing, for another schema, app or version and for damage.
    init(descriptor: Int32, path: String, identity: Journal.Identity) throws(JournalError) {
        self.path = path
        self.descriptor = descriptor
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .cannotOpen(path: path, reason: reason)
        }
        size = Int(info.st_size)
        do throws(JournalError) {
            var reader = FileReader(descriptor: descriptor, size: size, path: path)
            headerBytes = try Self.checkHeader(&reader, identity: identity, path: path).length
            end = headerBytes
            let whole = try Self.walk(&reader, from: headerBytes) { _, _, _ throws(JournalError) in true }
            (end, nextSeq, count) = (whole.end, whole.nextSeq, whole.count)
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// Creates the log of `identity` at `path` whole or not at all: the header (and `records` as the
    /// first frame, when there are any) is written to `path.new`, flushed, and renamed over `path` (a
    /// missing or empty file, or a log being rewritten from a checkpoint).
    static func create(path: String, identity: Journal.Identity, first records: [Journal.Record] = []) throws(JournalError) -> JournalLog {
        let temporary = path + ".new"
        let descriptor = try createFile(temporary, for: path)
        let doing = records.isEmpty ? "writing its header" : "rewriting it from a checkpoint"
        do throws(JournalError) {
            try writeAll(descriptor, header(identity), at: 0, path: path, doing: doing)
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        // The log takes the descriptor over (it closes it when it throws, and when it goes), and reads
        // the new file before it takes the journal's name: nothing can fail after the rename.
        let log: JournalLog
        do throws(JournalError) {
            log = try JournalLog(descriptor: descriptor, path: path, identity: identity)
            if !records.isEmpty { try log.append(records) }
            guard fsync(descriptor) == 0 else { throw .io(path: path, doing: doing, reason: String(cString: strerror(errno))) }
            guard rename(temporary, path) == 0 else {
                throw .cannotOpen(path: path, reason: "cannot rename \(temporary) to it: \(String(cString: strerror(errno)))")
            }
        } catch {
            unlink(temporary)
            throw error
        }
        syncDirectory(of: path)
        return log
    }

    deinit {
        // What was allocated ahead is cut away: a journal closed is its header and frames.
        if segment != nil {
            segment = nil
            _ = ftruncate(descriptor, off_t(end))
        }
        close(descriptor)
    }

    // MARK: Writing

    /// Appends `records` as one frame with one write: all of them or, on an error, none (the file is
    /// cut back to its last whole frame). The first append cuts a torn frame away.
    func append(_ records: some Collection<Journal.Record>) throws(JournalError) {
        guard !records.isEmpty else { return }
        try appendFrame(count: records.count) { JournalBatch.encode(records, into: &$0) }
    }

    /// Appends an encoded batch as one frame, as `append(_:)` does its records: its bytes are written
    /// as they are, behind the frame's header, with one `pwritev` (copying them into a frame buffer
    /// first cost ~0.3 k instructions per commit, callgrind of `flowd-relay`).
    func append(_ batch: EncodedBatch) throws(JournalError) {
        guard !batch.isEmpty else { return }
        try writeFrame(count: batch.count, records: batch.bytes)
    }

    /// Writes one frame of `count` records whose bytes `encode` appends.
    private func appendFrame(count: Int, _ encode: (inout [UInt8]) -> Void) throws(JournalError) {
        // The frame buffer is lent out for the batch (swapped out, swapped back): no access to the
        // field spans a call, so the compiler proves them exclusive and checks none at run time.
        var frame: [UInt8] = []
        swap(&frame, &self.frame)
        defer { swap(&frame, &self.frame) }
        frame.removeAll(keepingCapacity: true)
        encode(&frame)
        try writeFrame(count: count, records: frame)
    }

    /// Writes the frame of `count` records encoded in `records` at the end: all of it or, on an
    /// error, none (the file is cut back to its last whole frame). The first write cuts a torn frame away.
    private func writeFrame(count: Int, records: [UInt8]) throws(JournalError) {
        guard records.count <= Int(UInt32.max), count <= Int(UInt32.max) else {
            throw .io(path: path, doing: "appending a batch of inputs", reason: "a batch of \(records.count) bytes is larger than a frame can hold (4 GiB)")
        }
        let sum = records.withUnsafeBufferPointer { JournalBatch.sum(seq: nextSeq, count: Int64(count), bytes: $0) }
        // The header's three little-endian words: length and count, sequence number, checksum.
        var header = (UInt64(records.count) | UInt64(count) << 32, UInt64(bitPattern: nextSeq), UInt64(bitPattern: sum))
        header = (header.0.littleEndian, header.1.littleEndian, header.2.littleEndian)
        let total = Self.frameHeaderBytes + records.count
        if mapsAhead, copyFrame(&header, records, total: total) {
            end += total
            nextSeq += 1
            self.count += count
            return
        }
        if size > end { try cut(to: end) }
        do throws(JournalError) {
            var (written, failure) = (-1, EINTR)
            while written < 0 && failure == EINTR {
                (written, failure) = withUnsafeBytes(of: &header) { head in
                    records.withUnsafeBytes { body in
                        // Two `iovec`s in a tuple, seen as an array of two: nothing allocated per commit.
                        var parts = (iovec(iov_base: UnsafeMutableRawPointer(mutating: head.baseAddress), iov_len: head.count),
                                     iovec(iov_base: UnsafeMutableRawPointer(mutating: body.baseAddress), iov_len: body.count))
                        let result = withUnsafePointer(to: &parts) {
                            $0.withMemoryRebound(to: iovec.self, capacity: 2) { pwritev(descriptor, $0, 2, off_t(end)) }
                        }
                        return (result, errno)
                    }
                }
            }
            guard written >= 0 else { throw Self.writeError(failure, path: path, doing: "appending a batch of inputs") }
            if written < total {
                // A short write (rare: a full disk, a file size limit): the rest from one joined copy.
                let whole = withUnsafeBytes(of: &header) { Array($0) } + records
                try Self.writeAll(descriptor, Array(whole[written...]), at: end + written, path: path, doing: "appending a batch of inputs")
            }
        } catch {
            // A partial write leaves a torn frame: cut it now, or (if even that fails) at the next try.
            if ftruncate(descriptor, off_t(end)) != 0 { size = end + total }
            throw error
        }
        end += total
        size = end
        nextSeq += 1
        self.count += count
    }

    /// Copies the frame (`header`, then `records`, `total` bytes) to the end of the mapped segment,
    /// mapping and allocating ahead first where needed. False when the file cannot be mapped or
    /// allocated (the file is then cut back to its frames, and the frame goes through `pwritev`,
    /// which succeeds or fails as it would have: an allocation ahead may fail where the frame fits).
    private func copyFrame(_ header: inout (UInt64, UInt64, UInt64), _ records: [UInt8], total: Int) -> Bool {
        if unmappedFrames > 0 {
            unmappedFrames -= 1
            return false
        }
        if let segment, segment.maps(end, count: total) {
            // The common case: room in the segment, or one `posix_fallocate` ahead.
        } else {
            segment = nil
            // A torn frame found at opening (or, past the mapping's end, zeros allocated ahead) is cut
            // before the mapping starts at the end of the frames.
            if size > end {
                guard ftruncate(descriptor, off_t(end)) == 0 else { return unmapped() }
                size = end
            }
            guard let fresh = MappedSegment(descriptor: descriptor, from: end, fileSize: size), fresh.maps(end, count: total) else {
                return unmapped()
            }
            segment = fresh
        }
        guard let segment, segment.allocate(upTo: end + total, frames: end) == 0 else {
            self.segment = nil
            _ = ftruncate(descriptor, off_t(end))
            size = end
            return unmapped()
        }
        size = max(size, segment.allocatedEnd)
        withUnsafeBytes(of: &header) { head in
            records.withUnsafeBytes { body in segment.copy(head, body, at: end) }
        }
        return true
    }

    /// The frame goes through `pwritev`, and so do the next `framesBeforeMappingAgain`.
    private func unmapped() -> Bool {
        unmappedFrames = Self.framesBeforeMappingAgain
        return false
    }

    /// Forgets every frame (the header stays).
    func clear() throws(JournalError) {
        try cut(to: headerBytes)
        nextSeq = 1
        count = 0
    }

    private func cut(to offset: Int) throws(JournalError) {
        // No page of a mapping may lie past the end of the file when it is written.
        segment = nil
        guard ftruncate(descriptor, off_t(offset)) == 0 else { throw Self.writeError(errno, path: path, doing: "cutting a torn frame away") }
        end = offset
        size = offset
    }

    // MARK: Reading

    /// Reads the records of the whole frames, oldest first, a frame at a time, until `body` returns false.
    func forEachRecord(_ body: (Journal.Record) -> Bool) throws(JournalError) {
        var reader = FileReader(descriptor: descriptor, size: end, path: path)
        var inputs = 0
        _ = try Self.walk(&reader, from: headerBytes) { seq, count, bytes throws(JournalError) in
            guard let goOn = JournalBatch.decode(bytes, count: count, body) else {
                throw .corrupt(path: path, reason: "batch \(seq) (after input \(inputs)) does not hold the \(count) inputs it says")
            }
            inputs += count
            return goOn
        }
    }

    /// Where the whole frames end, and what they hold.
    struct Walked {
        var end: Int
        var nextSeq: Int64
        var count: Int
    }

    /// Visits the frames from `start` with their sequence number, record count and bytes, each checked
    /// against its checksum and its place, until `visit` returns false. Stops quietly at a torn last frame;
    /// throws `corrupt` for a bad frame with a good one after it.
    private static func walk(_ reader: inout FileReader, from start: Int, _ visit: (Int64, Int, ArraySlice<UInt8>) throws(JournalError) -> Bool) throws(JournalError) -> Walked {
        var walked = Walked(end: start, nextSeq: 1, count: 0)
        while walked.end < reader.size {
            guard let frame = try reader.frame(at: walked.end, seq: walked.nextSeq) else {
                // Not a good frame: a torn write if nothing good follows, damage otherwise.
                if try reader.goodFrame(after: walked.end, seqAtLeast: walked.nextSeq) {
                    throw .corrupt(path: reader.path, reason: "batch \(walked.nextSeq) (after input \(walked.count)) fails its checksum, and later batches follow it")
                }
                return walked
            }
            guard try visit(walked.nextSeq, frame.count, frame.bytes) else { return walked }
            walked.end += frameHeaderBytes + frame.bytes.count
            walked.nextSeq += 1
            walked.count += frame.count
        }
        return walked
    }

    // MARK: The header

    /// The header of a new log of `identity`.
    static func header(_ identity: Journal.Identity) -> [UInt8] {
        var names: [UInt8] = []
        for text in [identity.app, identity.appVersion] {
            let utf8 = Array(text.utf8)
            JournalBatch.appendVarint(UInt64(utf8.count), to: &names)
            names += utf8
        }
        var bytes = magic + [UInt8](repeating: 0, count: 8) + names
        put(UInt64(Journal.schemaVersion), bytes: 4, into: &bytes, at: 8)
        put(UInt64(names.count), bytes: 4, into: &bytes, at: 12)
        var hash = FNV1a()
        for byte in bytes { hash.mix(byte) }
        bytes += [UInt8](repeating: 0, count: 8)
        put(hash.value, bytes: 8, into: &bytes, at: bytes.count - 8)
        return bytes
    }

    /// Checks the header (the caller saw the magic): schema first — another schema may lay out the
    /// rest differently — then the checksum, then the identity (nil: any). Returns the header's
    /// length and the identity it holds.
    private static func checkHeader(_ reader: inout FileReader, identity: Journal.Identity?, path: String) throws(JournalError)
        -> (length: Int, identity: Journal.Identity) {
        guard reader.size >= fixedHeaderBytes, let fixed = try reader.bytes(at: 0, count: fixedHeaderBytes) else {
            throw .corrupt(path: path, reason: "its header is cut short")
        }
        let schema = Int32(truncatingIfNeeded: get(fixed, at: 8, bytes: 4))
        guard schema == Journal.schemaVersion else { throw .otherSchema(path: path, found: schema, expected: Journal.schemaVersion) }
        let names = Int(get(fixed, at: 12, bytes: 4))
        guard names <= maxIdentityBytes, let header = try reader.bytes(at: 0, count: fixedHeaderBytes + names + 8) else {
            throw .corrupt(path: path, reason: "its header is cut short")
        }
        var hash = FNV1a()
        for byte in header.dropLast(8) { hash.mix(byte) }
        guard hash.value == get(header, at: header.count - 8, bytes: 8) else { throw .corrupt(path: path, reason: "its header fails its checksum") }
        var fields = JournalBatch.Reader(bytes: Array(header[fixedHeaderBytes..<(fixedHeaderBytes + names)]))
        var found: [String] = []
        while found.count < 2, let length = fields.varint(), let text = fields.bytes(length) {
            found.append(String(decoding: text, as: UTF8.self))
        }
        guard found.count == 2, fields.atEnd else { throw .corrupt(path: path, reason: "its header does not hold an app and a version") }
        if let identity {
            guard found[0] == identity.app else { throw .otherApp(path: path, found: found[0], expected: identity.app) }
            guard found[1] == identity.appVersion else { throw .otherAppVersion(path: path, found: found[1], expected: identity.appVersion) }
        }
        return (header.count, Journal.Identity(app: found[0], appVersion: found[1]))
    }

    /// Reads the log at `path` whoever wrote it — any app, any version — writing nothing and taking
    /// no lock: the identity in its header and the last record of `kind` in its whole frames. Throws
    /// for a file that is not a log of this schema, and for damage.
    static func lastRecord(ofKind kind: Int64, at path: String) throws(JournalError) -> (Journal.Identity, Journal.Record?) {
        let (identity, found, _) = try lastRecords(ofKinds: [kind], at: path)
        return (identity, found[kind])
    }

    /// As `lastRecord(ofKind:at:)`, for several kinds at once, and the log's very last record.
    static func lastRecords(ofKinds kinds: Set<Int64>, at path: String) throws(JournalError)
        -> (Journal.Identity, [Int64: Journal.Record], Journal.Record?) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        var reader = FileReader(descriptor: descriptor, size: Int(info.st_size), path: path)
        guard let first = try reader.bytes(at: 0, count: magic.count), Array(first) == magic else {
            throw .notAJournal(path: path, reason: "it is not a flowd log")
        }
        let (length, identity) = try checkHeader(&reader, identity: nil, path: path)
        var found: [Int64: Journal.Record] = [:]
        var last: Journal.Record?
        _ = try walk(&reader, from: length) { seq, count, bytes throws(JournalError) in
            let decoded = JournalBatch.decode(bytes, count: count) { record in
                if kinds.contains(record.kind) { found[record.kind] = record }
                last = record
                return true
            }
            guard decoded != nil else { throw .corrupt(path: path, reason: "batch \(seq) does not hold the \(count) records it says") }
            return true
        }
        return (identity, found, last)
    }

    // MARK: Files

    /// Creates `file` anew (owner only: it holds what users typed), replacing an older file of that
    /// name (a `.new` left by a crash) by unlinking it first: it never opens what is there. A symbolic
    /// link there is refused and kept (a crash leaves none). `journal` names the journal in errors.
    static func createFile(_ file: String, for journal: String) throws(JournalError) -> Int32 {
        var unlinkedLeftover = false
        while true {
            let descriptor = open(file, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if descriptor >= 0 { return descriptor }
            let number = errno
            if number == EEXIST, Journal.isLink(file) {
                throw Journal.plantedLink(file, what: "its temporary file", journal: journal)
            }
            guard number == EEXIST, !unlinkedLeftover else {
                throw .cannotOpen(path: journal, reason: "cannot create \(file): \(String(cString: strerror(number)))")
            }
            unlinkedLeftover = true
            unlink(file)
        }
    }

    /// Writes all of `bytes` at `offset`, going on after short writes.
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], at offset: Int, path: String, doing: String) throws(JournalError) {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + written, $0.count - written, off_t(offset + written)) }
            if result < 0 {
                if errno == EINTR { continue }
                throw writeError(errno, path: path, doing: doing)
            }
            written += result
        }
    }

    static func writeError(_ number: Int32, path: String, doing: String) -> JournalError {
        switch number {
        case ENOSPC, EDQUOT: .diskFull(path: path)
        case EFBIG: .fileTooLarge(path: path)
        default: .io(path: path, doing: doing, reason: String(cString: strerror(number)))
        }
    }

    /// Flushes the directory holding `path`, so that a rename in it survives a power cut.
    static func syncDirectory(of path: String) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    static func put(_ value: UInt64, bytes count: Int, into bytes: inout [UInt8], at offset: Int) {
        for index in 0..<count { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
    }

    static func get(_ bytes: some RandomAccessCollection<UInt8>, at offset: Int, bytes count: Int) -> UInt64 {
        var value: UInt64 = 0
        let start = bytes.index(bytes.startIndex, offsetBy: offset)
        for index in 0..<count { value |= UInt64(bytes[bytes.index(start, offsetBy: index)]) << (8 * UInt64(index)) }
        return value
    }
}

/// Reads a file through a window of up to 1 MiB: a restore reads frames of a few dozen bytes each,
/// and a system call per frame would be most of its cost.
struct FileReader {
    let descriptor: Int32
    /// Where reading stops (the file's size, or the end of its whole frames).
    let size: Int
    let path: String
    private var window: [UInt8] = []
    private var windowStart = 0

    static let windowBytes = 1 << 20

    init(descriptor: Int32, size: Int, path: String) {
        self.descriptor = descriptor
        self.size = size
        self.path = path
    }

    /// The `count` bytes at `offset`; nil when the file ends before them.
    mutating func bytes(at offset: Int, count: Int) throws(JournalError) -> ArraySlice<UInt8>? {
        guard count >= 0, offset + count <= size else { return nil }
        if offset < windowStart || offset + count > windowStart + window.count {
            let length = min(max(count, Self.windowBytes), size - offset)
            var fresh = [UInt8](repeating: 0, count: length)
            var done = 0
            while done < length {
                let result = fresh.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, length - done, off_t(offset + done)) }
                if result < 0, errno == EINTR { continue }
                guard result > 0 else {
                    throw .io(path: path, doing: "reading the journal", reason: result == 0 ? "it ended at \(offset + done) bytes while being read" : String(cString: strerror(errno)))
                }
                done += result
            }
            window = fresh
            windowStart = offset
        }
        let from = offset - windowStart
        return window[from..<(from + count)]
    }

    /// The frame at `offset` if it is whole, has sequence number `seq` and passes its checksum.
    mutating func frame(at offset: Int, seq: Int64) throws(JournalError) -> (count: Int, bytes: ArraySlice<UInt8>)? {
        guard let header = try bytes(at: offset, count: JournalLog.frameHeaderBytes) else { return nil }
        let length = Int(JournalLog.get(header, at: 0, bytes: 4))
        let count = Int(JournalLog.get(header, at: 4, bytes: 4))
        guard count >= 1, Int64(bitPattern: JournalLog.get(header, at: 8, bytes: 8)) == seq,
              let records = try bytes(at: offset + JournalLog.frameHeaderBytes, count: length)
        else { return nil }
        let sum = records.withUnsafeBufferPointer { JournalBatch.sum(seq: seq, count: Int64(count), bytes: $0) }
        guard sum == Int64(bitPattern: JournalLog.get(header, at: 16, bytes: 8)) else { return nil }
        return (count, records)
    }

    /// Whether a good frame with a sequence number from `seq` on starts anywhere after `offset`:
    /// what tells damage in the middle from a torn last write. Only runs when a frame is bad.
    mutating func goodFrame(after offset: Int, seqAtLeast seq: Int64) throws(JournalError) -> Bool {
        // A frame holds at least one record, so its header is not all zeros: none starts after the
        // last byte that is not zero (a tail allocated ahead, or grown by a power cut, is skipped whole).
        guard let last = try lastNonzeroByte(from: offset + 1) else { return false }
        var at = offset + 1
        while at + JournalLog.frameHeaderBytes <= size, at <= last {
            if let header = try bytes(at: at, count: JournalLog.frameHeaderBytes) {
                let found = Int64(bitPattern: JournalLog.get(header, at: 8, bytes: 8))
                // Cheap tests first: a plausible sequence number and a length that fits.
                if found >= seq, found - seq < Int64(size), try frame(at: at, seq: found) != nil { return true }
            }
            at += 1
        }
        return false
    }

    /// Where the last byte that is not zero lies from `offset` on; nil when there are only zeros.
    mutating func lastNonzeroByte(from offset: Int) throws(JournalError) -> Int? {
        var chunkEnd = size
        while chunkEnd > offset {
            let chunkStart = max(offset, chunkEnd - Self.windowBytes)
            guard let chunk = try bytes(at: chunkStart, count: chunkEnd - chunkStart) else { return nil }
            if let index = chunk.lastIndex(where: { $0 != 0 }) { return chunkStart + (index - chunk.startIndex) }
            chunkEnd = chunkStart
        }
        return nil
    }
}
