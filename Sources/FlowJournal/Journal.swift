import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's journal: every input that changed the app, in order, in one file appended to a batch
/// (the daemon's loop iteration) at a time — a log (`JournalLog`). The file says whose it is — app,
/// app version, schema — and a journal of another app, version or schema, a damaged file or one
/// that is not a journal at all is refused with a `JournalError` and left as it is (the caller may
/// `moveAside` it and start fresh; nothing is ever deleted silently). An older flowd's SQLite journal
/// is read as it is and converted at the first write. One process at a time: a lock file next to
/// the journal (docs/journal.md).
public final class Journal {
    /// Who wrote a journal: inputs only replay into the same app at the same version.
    public struct Identity: Equatable, Sendable {
        public var app: String
        public var appVersion: String
        public init(app: String, appVersion: String) {
            self.app = app
            self.appVersion = appVersion
        }
    }

    /// One journaled input: what kind it is (the caller's numbering), its encoded body, the key its
    /// sender gave it (0: none), and on the last input of a batch the caller's check of the state the
    /// batch ended in (nil elsewhere).
    public struct Record: Equatable, Sendable {
        public var kind: Int64
        public var body: [UInt8]
        public var key: Int64
        public var check: Int64?
        public init(kind: Int64, body: [UInt8], key: Int64 = 0, check: Int64? = nil) {
            self.kind = kind
            self.body = body
            self.key = key
            self.check = check
        }
    }

    /// The schema this flowd writes: 3, the log (`JournalLog`). Journals of schema 1 and 2 (SQLite, a
    /// row per input and a row per batch) are read as they are and converted at their first write (by
    /// then their restore went through: a journal refused on its replay is kept as it was found).
    public static let schemaVersion: Int32 = 3

    public let path: String
    public let identity: Identity
    private let lock: Int32
    /// The file: a log, or an older flowd's SQLite journal until the first write converts it.
    private var store: Store
    /// The SQLite journal a conversion kept (`PATH.sqlite-…`), until the caller takes the news.
    private var convertedAside: String?

    private enum Store {
        case log(JournalLog)
        case sqlite(SQLiteJournal)
    }

    /// Whether a commit is a memory copy into a mapped segment of the file allocated ahead (true:
    /// the daemon's journal) rather than a `pwritev` (docs/journal.md, "A commit is a memory copy").
    /// Both keep a commit through a crash of the process; while open, a mapped journal's file ends in
    /// the zeros allocated ahead, which a reader takes for its end.
    public let mapsAhead: Bool

    /// Opens the journal at `path` for `identity`, creating it if the file is new or empty. Refuses
    /// another app's, version's or schema's journal, a damaged file, a file that is not a journal,
    /// and a journal another process holds, changing nothing. `mapsAhead`: commits are memory copies.
    public init(path: String, identity: Identity, mapsAhead: Bool = false) throws(JournalError) {
        self.path = path
        self.identity = identity
        self.mapsAhead = mapsAhead
        try Self.checkDirectory(of: path)
        lock = try Self.takeLock(path + ".lock", journal: path)
        do throws(JournalError) {
            store = try Self.openStore(path, identity: identity)
        } catch {
            close(lock)
            throw error
        }
        if case .log(let log) = store { log.mapsAhead = mapsAhead }
    }

    deinit {
        if case .sqlite(let journal) = store { journal.close() }
        close(lock)
    }

    /// Opens the file at `path` as what its first bytes say it is.
    private static func openStore(_ path: String, identity: Identity) throws(JournalError) -> Store {
        let descriptor = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            let number = errno
            if number == ENOENT { return .log(try JournalLog.create(path: path, identity: identity)) }
            let reason = switch number {
            case EISDIR: "it is a directory"
            case ELOOP where isLink(path): linkedJournal(path)
            case EACCES where access(path, R_OK) == 0, EROFS:
                "it is read-only: it cannot be written (its permissions, or a read-only file system)"
            default: String(cString: strerror(number))
            }
            throw .cannotOpen(path: path, reason: reason)
        }
        var first = [UInt8](repeating: 0, count: SQLiteJournal.fileHeader.count)
        let read = first.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        let readError = errno  // before `close` can change it
        if read == 0 {
            close(descriptor)
            return .log(try JournalLog.create(path: path, identity: identity))
        }
        if read >= JournalLog.magic.count, Array(first.prefix(JournalLog.magic.count)) == JournalLog.magic {
            return .log(try JournalLog(descriptor: descriptor, path: path, identity: identity))
        }
        close(descriptor)
        guard read == first.count, first == SQLiteJournal.fileHeader else {
            throw .notAJournal(path: path, reason: read < 0 ? String(cString: strerror(readError)) : "neither a flowd journal nor an SQLite database")
        }
        return .sqlite(try SQLiteJournal(path: path, identity: identity))
    }

    /// The identity of the journal at `path` and its last record of `kind`, whatever app and version
    /// wrote it: what a new version of an app may carry over from a journal it cannot replay. Writes
    /// nothing and takes no lock; nil record for none, or for an older flowd's SQLite journal (which
    /// holds no records of kinds it did not know). Throws for a file that is not a journal, another
    /// schema, or damage.
    public static func lastRecord(ofKind kind: Int64, at path: String) throws(JournalError) -> (Identity, Record?) {
        let (identity, found, _) = try lastRecords(ofKinds: [kind], at: path)
        return (identity, found[kind])
    }

    /// As `lastRecord(ofKind:at:)`, for several kinds at once, and the journal's very last record
    /// (nil for an empty journal): a stop's last words are the latter (docs/restore.md).
    public static func lastRecords(ofKinds kinds: Set<Int64>, at path: String) throws(JournalError) -> (Identity, [Int64: Record], Record?) {
        var first = [UInt8](repeating: 0, count: JournalLog.magic.count)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        let read = first.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        close(descriptor)
        guard read == first.count, first == JournalLog.magic else {
            throw .notAJournal(path: path, reason: "it is not a flowd log (an older flowd's SQLite journal holds no such records)")
        }
        return try JournalLog.lastRecords(ofKinds: kinds, at: path)
    }

    /// Keeps the journal at `path` (and its WAL and shared-memory files, for an older flowd's) as
    /// `PATH.previous`, the one archive slot: what was there before is replaced. An upgrade of the app
    /// keeps the old version's journal there until the next one (docs/restore.md). Returns the slot.
    public static func archive(_ path: String) throws(JournalError) -> String {
        let target = "\(path).previous"
        for extra in ["-wal", "-shm"] where !FileManager.default.fileExists(atPath: path + extra) { unlink(target + extra) }
        for extra in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + extra) {
            guard rename(path + extra, target + extra) == 0 else {
                throw .cannotOpen(path: path + extra, reason: "cannot rename it to \(target + extra): \(String(cString: strerror(errno)))")
            }
        }
        JournalLog.syncDirectory(of: path)
        return target
    }

    /// Appends `records` as one batch: all of them or, on an error, none. An older flowd's SQLite
    /// journal is converted into a log first.
    public func append(_ records: [Record]) throws(JournalError) {
        guard !records.isEmpty else { return }
        try log().append(records)
    }

    /// Appends an encoded batch, as `append(_:)` does records.
    public func append(_ batch: EncodedBatch) throws(JournalError) {
        guard !batch.isEmpty else { return }
        try log().append(batch)
    }

    /// Every record, oldest first.
    public func records() throws(JournalError) -> [Record] {
        var records: [Record] = []
        try forEachRecord { records.append($0); return true }
        return records
    }

    /// Reads the records, oldest first, one batch at a time (a restore of a million inputs does not
    /// hold them all), until `body` returns false.
    public func forEachRecord(_ body: (Record) -> Bool) throws(JournalError) {
        switch store {
        case .log(let log): try log.forEachRecord(body)
        case .sqlite(let journal): try journal.forEachRecord(body)
        }
    }

    /// How many records it holds.
    public func count() throws(JournalError) -> Int {
        switch store {
        case .log(let log): log.count
        case .sqlite(let journal): try journal.count()
        }
    }

    /// Replaces every record with `records`, as one batch (a checkpoint and what it needs: docs/journal.md,
    /// "Compaction"). The new log is written whole to `PATH.new`, flushed and renamed over the journal,
    /// so a crash at any point leaves the old log or the new one at `path`, never neither and never a
    /// mix. Wait for flushes of the old log in flight first: its file is closed here.
    public func rewrite(_ records: [Record]) throws(JournalError) {
        precondition(!records.isEmpty, "a rewritten journal starts with a checkpoint")
        _ = try log()  // an older flowd's SQLite journal is converted (and kept aside) first
        let log = try JournalLog.create(path: path, identity: identity, first: records)
        log.mapsAhead = mapsAhead
        store = .log(log)
    }

    /// Bytes in the journal's whole frames and header (what a restore reads).
    public var size: Int {
        if case .log(let log) = store { return log.byteCount }
        return 0
    }

    /// Forgets every record (the app finished: nothing to restore).
    public func clear() throws(JournalError) {
        try log().clear()
    }

    /// The schema of the file as it is now: 3 (a log), or 1 or 2 (an older flowd's SQLite journal,
    /// until the first write).
    public var schema: Int32 {
        switch store {
        case .log: Self.schemaVersion
        case .sqlite(let journal): journal.schema
        }
    }

    /// Bytes of a torn last frame (a crash or power cut while appending) found when the journal
    /// opened, which the first write cuts away; 0 when there are none.
    public var tornBytes: Int {
        if case .log(let log) = store { return log.tornBytes }
        return 0
    }

    /// Whether the torn bytes are all zeros: the space a mapped journal had allocated ahead when its
    /// process was killed (or a file a power cut grew before its data was written). Reads them.
    public var tornBytesAreZeros: Bool {
        if case .log(let log) = store { return log.tornBytesAreZeros }
        return false
    }

    /// Where the SQLite journal went that the last write converted into a log, once: nil after that,
    /// and when nothing was converted.
    public func takeConvertedAside() -> String? {
        defer { convertedAside = nil }
        return convertedAside
    }

    /// What flushes the log to the disk from another thread (nil while the file is an SQLite journal),
    /// for one flush: ask again for the next. Valid while this journal is open and not converted.
    public func syncRequest() -> JournalSync? {
        if case .log(let log) = store { return log.syncRequest() }
        return nil
    }

    /// The log to write, converting an SQLite journal first.
    private func log() throws(JournalError) -> JournalLog {
        switch store {
        case .log(let log): return log
        case .sqlite(let journal):
            let log = try convert(journal)
            log.mapsAhead = mapsAhead
            store = .log(log)
            return log
        }
    }

    /// Turns an SQLite journal into a log at the same path, keeping the SQLite files beside it as
    /// `PATH.sqlite-YYYYMMDD-HHMMSS` (never deleted). The log is written whole to `PATH.new` first and
    /// renamed over the journal after the old files got their second name (hard links): a crash at any
    /// point leaves the SQLite journal or the log at `path`, never neither. Damage found on the way
    /// refuses the journal unchanged.
    private func convert(_ journal: SQLiteJournal) throws(JournalError) -> JournalLog {
        let temporary = path + ".new"
        let descriptor = try JournalLog.createFile(temporary, for: path)
        let log: JournalLog
        do throws(JournalError) {
            try JournalLog.writeAll(descriptor, JournalLog.header(identity), at: 0, path: path, doing: "converting the journal")
            log = try JournalLog(descriptor: dup(descriptor), path: path, identity: identity)
            // A batch ends at each input that carries a check, as the daemon wrote them.
            var batch: [Record] = []
            var failure: JournalError?
            try journal.forEachRecord { record in
                batch.append(record)
                guard record.check != nil || batch.count >= Self.maxConvertedBatch else { return true }
                do throws(JournalError) { try log.append(batch) } catch {
                    failure = error
                    return false
                }
                batch.removeAll(keepingCapacity: true)
                return true
            }
            if let failure { throw failure }
            try log.append(batch)
            guard fsync(descriptor) == 0 else { throw .io(path: path, doing: "converting the journal", reason: String(cString: strerror(errno))) }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        // The SQLite files get their second name before the log takes the first; the connection stays
        // open until then, so that a failure here leaves the journal as it was, readable and retried.
        let aside = Self.freeName("\(path).sqlite-\(Self.stamp(Date()))")
        var kept: [String] = []
        do throws(JournalError) {
            for extra in ["", "-wal"] where access(path + extra, F_OK) == 0 {
                try Self.keep(path + extra, as: aside + extra)
                kept.append(aside + extra)
            }
            guard rename(temporary, path) == 0 else {
                throw .cannotOpen(path: path, reason: "cannot rename \(temporary) to it: \(String(cString: strerror(errno)))")
            }
        } catch {
            for file in kept { unlink(file) }
            unlink(temporary)
            throw error
        }
        journal.close()
        // The old log and its index now belong to the file kept aside (the index is rebuilt from the log).
        unlink(path + "-wal")
        unlink(path + "-shm")
        JournalLog.syncDirectory(of: path)
        convertedAside = aside
        return log
    }

    /// Gives `file` the second name `name`: a hard link, or a copy where the file system has none.
    private static func keep(_ file: String, as name: String) throws(JournalError) {
        guard link(file, name) != 0 else { return }
        let reason = String(cString: strerror(errno))
        do {
            try FileManager.default.copyItem(atPath: file, toPath: name)
        } catch {
            throw .cannotOpen(path: file, reason: "cannot keep it as \(name) to convert the journal: \(reason)")
        }
    }

    /// The most records a converted batch holds when the old journal has no checks (a frame stays small).
    static let maxConvertedBatch = 100_000

    /// Moves a refused journal (and its WAL and shared-memory files) aside as
    /// `PATH.refused-YYYYMMDD-HHMMSS`, so a fresh one can start; returns the new path. Never deletes.
    public static func moveAside(_ path: String, now: Date = Date()) throws(JournalError) -> String {
        let target = freeName("\(path).refused-\(stamp(now))")
        for extra in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + extra) {
            guard rename(path + extra, target + extra) == 0 else {
                throw .cannotOpen(path: path + extra, reason: "cannot rename it to \(target + extra): \(String(cString: strerror(errno)))")
            }
        }
        return target
    }

    /// `now` as `YYYYMMDD-HHMMSS` in UTC.
    private static func stamp(_ now: Date) -> String {
        // gmtime_r, not DateFormatter: that one links full Foundation and ICU's data into a static flowd.
        var seconds = time_t(now.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        guard gmtime_r(&seconds, &fields) != nil else { return "\(Int(now.timeIntervalSince1970))" }
        func two(_ value: Int32) -> String { (value < 10 ? "0" : "") + "\(value)" }
        return "\(fields.tm_year + 1900)" + two(fields.tm_mon + 1) + two(fields.tm_mday) + "-" + two(fields.tm_hour) + two(fields.tm_min) + two(fields.tm_sec)
    }

    /// `name`, or `name-2`, `name-3`… : the first that does not exist.
    private static func freeName(_ name: String) -> String {
        var target = name
        var suffix = 1
        while FileManager.default.fileExists(atPath: target) {
            suffix += 1
            target = "\(name)-\(suffix)"
        }
        return target
    }

    /// Takes the journal's lock file (exclusive, not waiting) and writes our pid in it. A symbolic
    /// link at its path is refused, not followed (as the socket's lock, UVKit's `LockFile`).
    private static func takeLock(_ lockPath: String, journal: String) throws(JournalError) -> Int32 {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            if errno == ELOOP, isLink(lockPath) { throw plantedLink(lockPath, what: "its lock file", journal: journal) }
            throw .cannotOpen(path: journal, reason: "cannot create the lock file \(lockPath) next to it: \(String(cString: strerror(errno)))")
        }
        // A lock this process released may still be held for a moment by a child forked before the
        // release and not yet exec'd (the copy of the descriptor a fork takes holds the same `flock`):
        // a holder named by our own pid is waited for, up to half a second; another is refused at once.
        var waited = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            var bytes = [UInt8](repeating: 0, count: 32)
            let count = pread(fd, &bytes, bytes.count, 0)
            let pid = String(String(decoding: bytes.prefix(max(0, count)), as: UTF8.self).filter { !$0.isWhitespace })
            if pid == "\(getpid())", waited < 100 {
                waited += 1
                usleep(5_000)
                continue
            }
            close(fd)
            throw .locked(path: journal, holder: pid.isEmpty ? "another process" : "process \(pid)")
        }
        ftruncate(fd, 0)
        let pid = Array("\(getpid())\n".utf8)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return fd
    }
}

/// Flushes a journal's log to the disk (`fdatasync`) on a thread other than the writer's. A commit is
/// a `pwrite` without a flush: a crash of the process loses nothing, a power cut may lose the last
/// commits (a torn last frame is dropped) — SQLite's `synchronous=NORMAL`. The daemon flushes
/// each commit at most a second after it, off its loop, to bound what a power cut takes
/// (docs/journal.md, "Power loss").
public struct JournalSync: Sendable {
    let descriptor: Int32
    /// The mapped pages the next commits copy into, faulted back in writable after the flush
    /// (`MappedSegment`), with the segment (kept mapped until then).
    let rearm: (segment: MappedSegment, pages: Range<Int>)?

    public func run() {
        _ = fdatasync(descriptor)
        if let rearm { rearm.segment.populate(rearm.pages) }
    }
}
