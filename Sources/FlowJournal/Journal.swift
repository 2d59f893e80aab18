import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's journal: every input that changed the app, in order, in one SQLite file (WAL mode),
/// written as one row in one transaction per batch (the daemon's loop iteration). The file says whose it is —
/// app, app version, schema — and a journal of another app, version or schema, a damaged file or
/// one that is not a journal at all is refused with a `JournalError` and left as it is (the caller
/// may `moveAside` it and start fresh; nothing is ever deleted silently). One process at a time: a
/// lock file next to the journal (docs/journal.md).
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

    /// The page size of a new journal, in bytes.
    public static let pageSize = 1_024

    /// The schema this flowd writes and reads (SQLite's `user_version`): 2, a row per batch. A
    /// journal of schema 1 (a row per input) is read as it is and converted at its first write (by
    /// then its restore went through: a journal refused on its replay is kept as it was found).
    public static let schemaVersion: Int32 = 2

    /// The most bytes of records one row holds: a batch that grew while writes failed is written as
    /// several rows in its one transaction (SQLite refuses a blob over 10^9 bytes).
    static let maxRowBytes = 1 << 20
    /// Marks the file as a flowd journal (SQLite's `application_id`, "flwd").
    static let applicationID: Int32 = 0x666C_7764

    public let path: String
    public let identity: Identity
    private let database: SQLiteDatabase
    /// The schema of the file: 1 until its first write converts it.
    private var schema: Int32
    /// Prepared once the file is schema 2.
    private var insert: SQLiteDatabase.Statement?
    /// Prepared once: parsing `BEGIN` and `COMMIT` on every batch was a quarter of a commit's work.
    private let begin: SQLiteDatabase.Statement
    private let commit: SQLiteDatabase.Statement
    private let lock: Int32
    /// The sequence number the next batch gets.
    private var nextSeq: Int64 = 1

    /// Opens the journal at `path` for `identity`, creating it (and its schema) if the file is new or
    /// empty. Refuses another app's, version's or schema's journal, a damaged file, a file that is not
    /// a journal, and a journal another process holds.
    public init(path: String, identity: Identity) throws(JournalError) {
        self.path = path
        self.identity = identity
        lock = try Self.takeLock(path + ".lock", journal: path)
        do throws(JournalError) {
            // It holds what users typed: readable by the owner only (SQLite gives its -wal and -shm
            // files the database file's mode).
            let created = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if created >= 0 { close(created) }
            database = try SQLiteDatabase(path: path)
            guard !database.isReadOnly else {
                throw .cannotOpen(path: path, reason: "it is read-only: it cannot be written (its permissions, or a read-only file system)")
            }
            // Checked before anything is written: a refused file is left exactly as it was found.
            schema = try Self.checkOrCreate(database, identity: identity)
            // WAL: a commit is one append to the log; readers never block. NORMAL: a crash of the
            // process loses nothing committed; a power cut may lose the last commits, never the file.
            // No automatic checkpoint: it would run on the writer's thread (the daemon's loop) for
            // milliseconds; a `JournalCheckpointer` does it on another thread.
            try database.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=0;", doing: "setting up")
            database.checkpointOnClose(true)
            begin = try database.prepare("BEGIN", doing: "preparing the transaction")
            commit = try database.prepare("COMMIT", doing: "preparing the transaction")
            if schema == Self.schemaVersion { try prepareWriting() }
        } catch {
            close(lock)
            throw error
        }
    }

    deinit {
        database.close()
        close(lock)
    }

    /// Checks the file's identity and schema, or gives a new file both; returns its schema.
    private static func checkOrCreate(_ database: SQLiteDatabase, identity: Identity) throws(JournalError) -> Int32 {
        let application = Int32(truncatingIfNeeded: try database.integer("PRAGMA application_id", doing: "reading the header"))
        let tables = try database.integer("SELECT count(*) FROM sqlite_master", doing: "reading the schema")
        if application == 0 && tables == 0 {
            // Small pages: a commit appends (and checksums) whole pages to the log, and a batch of
            // inputs is a few hundred bytes; 1 KiB pages make a commit's log write a quarter of 4 KiB's.
            try database.execute("PRAGMA page_size=\(pageSize)", doing: "creating the journal")
            // One transaction: a journal exists with its identity, or not at all.
            try database.execute("""
                BEGIN;
                PRAGMA application_id=\(applicationID);
                PRAGMA user_version=\(schemaVersion);
                CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
                \(batchesTable);
                """, doing: "creating the journal")
            do {
                let meta = try database.prepare("INSERT INTO meta(key, value) VALUES (?1, ?2)", doing: "writing its identity")
                for (key, value) in [("app", identity.app), ("app_version", identity.appVersion)] {
                    meta.bind(1, key)
                    meta.bind(2, value)
                    _ = try meta.step(doing: "writing its identity")
                    meta.reset()
                }
                try database.execute("COMMIT", doing: "creating the journal")
            } catch {
                try? database.execute("ROLLBACK", doing: "rolling back")
                throw error
            }
            return schemaVersion
        }
        guard application == applicationID else {
            throw .notAJournal(path: database.path, reason: "an SQLite database of another program (application_id \(application))")
        }
        let schema = Int32(truncatingIfNeeded: try database.integer("PRAGMA user_version", doing: "reading the schema version"))
        guard schema == schemaVersion || schema == 1 else { throw .otherSchema(path: database.path, found: schema, expected: schemaVersion) }
        var found: [String: String] = [:]
        let meta = try database.prepare("SELECT key, value FROM meta", doing: "reading its identity")
        while try meta.step(doing: "reading its identity") { found[meta.text(0)] = meta.text(1) }
        guard found["app"] == identity.app else {
            throw .otherApp(path: database.path, found: found["app"] ?? "(none)", expected: identity.app)
        }
        guard found["app_version"] == identity.appVersion else {
            throw .otherAppVersion(path: database.path, found: found["app_version"] ?? "(none)", expected: identity.appVersion)
        }
        return schema
    }

    static let batchesTable = "CREATE TABLE batches(seq INTEGER PRIMARY KEY, inputs INTEGER NOT NULL, records BLOB NOT NULL, sum INTEGER NOT NULL)"

    /// The insert and the next sequence number of a schema 2 file.
    private func prepareWriting() throws(JournalError) {
        insert = try database.prepare("INSERT INTO batches(seq, inputs, records, sum) VALUES (?1, ?2, ?3, ?4)", doing: "preparing the insert")
        nextSeq = try database.integer("SELECT coalesce(max(seq), 0) + 1 FROM batches", doing: "reading the last batch")
    }

    /// Turns a journal of schema 1 (a row per input, `inputs(seq, kind, body, key, check, sum)`) into
    /// schema 2 in one transaction, a batch ending at each input that carries a check. Every old
    /// row's checksum is checked on the way: a damaged journal is rolled back and refused unchanged.
    private func convertFromSchema1() throws(JournalError) {
        try database.execute("BEGIN", doing: "converting the journal to schema 2")
        do {
            try database.execute(Self.batchesTable, doing: "converting the journal to schema 2")
            try prepareWriting()
            var batch: [Record] = []
            try forEachSchema1Record { record throws(JournalError) in
                batch.append(record)
                if record.check != nil {
                    try insertRows(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty { try insertRows(batch) }
            try database.execute("DROP TABLE inputs; PRAGMA user_version=\(Self.schemaVersion); COMMIT;", doing: "converting the journal to schema 2")
            schema = Self.schemaVersion
        } catch {
            try? database.execute("ROLLBACK", doing: "rolling back")
            insert = nil
            nextSeq = 1
            throw error
        }
    }

    /// Inserts `records` as the next rows, at most `maxRowBytes` of records each (inside the
    /// caller's transaction); `nextSeq` moves past them (the caller puts it back on a rollback).
    private func insertRows(_ records: [Record]) throws(JournalError) {
        guard let insert else { throw .sqlite(path: path, doing: "appending", code: 0, message: "the journal is not ready for writing") }
        var start = records.startIndex
        while start < records.endIndex {
            var end = start
            var size = 0
            repeat {
                size += records[end].body.count + 24
                end += 1
            } while end < records.endIndex && size + records[end].body.count + 24 <= Self.maxRowBytes
            let bytes = JournalBatch.encode(records[start..<end])
            let count = Int64(end - start)
            insert.bind(1, nextSeq)
            insert.bind(2, count)
            insert.bind(3, bytes)
            insert.bind(4, JournalBatch.sum(seq: nextSeq, count: count, bytes: bytes))
            defer { insert.reset() }
            _ = try insert.step(doing: "appending a batch of inputs")
            nextSeq += 1
            start = end
        }
    }

    /// Appends `records` in one transaction: all of them or, on an error, none. A journal of
    /// schema 1 is converted first, in a transaction of its own.
    public func append(_ records: [Record]) throws(JournalError) {
        guard !records.isEmpty else { return }
        if schema == 1 { try convertFromSchema1() }
        let first = nextSeq
        _ = try begin.step(doing: "starting a transaction")
        begin.reset()
        do {
            try insertRows(records)
            _ = try commit.step(doing: "committing")
            commit.reset()
        } catch {
            try? database.execute("ROLLBACK", doing: "rolling back")
            nextSeq = first
            throw error
        }
    }

    /// Every record, oldest first.
    public func records() throws(JournalError) -> [Record] {
        var records: [Record] = []
        try forEachRecord { records.append($0); return true }
        return records
    }

    /// Reads the records, oldest first, one at a time (a restore of a million inputs does not hold
    /// them all), until `body` returns false.
    public func forEachRecord(_ body: (Record) -> Bool) throws(JournalError) {
        if schema == 1 {
            try forEachSchema1Record { record in
                guard body(record) else { throw StopReading() }
            }
            return
        }
        let select = try database.prepare("SELECT seq, inputs, records, sum FROM batches ORDER BY seq", doing: "reading the inputs")
        defer { select.reset() }
        var expected: Int64 = 1
        var inputs = 0
        while try select.step(doing: "reading the inputs") {
            let seq = select.int64(0), count = select.int64(1), bytes = select.bytes(2)
            // SQLite keeps no checksum of its pages: a page torn by a power cut reads as other bytes.
            guard seq == expected, count >= 0, select.int64(3) == JournalBatch.sum(seq: seq, count: count, bytes: bytes) else {
                throw .corrupt(path: path, reason: seq == expected ? "batch \(seq) (after input \(inputs)) fails its checksum" : "batch \(expected) is missing")
            }
            guard let goOn = JournalBatch.decode(bytes, count: Int(count), body) else {
                throw .corrupt(path: path, reason: "batch \(seq) (after input \(inputs)) does not hold the \(count) inputs it says")
            }
            guard goOn else { return }
            expected += 1
            inputs += Int(count)
        }
    }

    /// Thrown by a reader's body to stop early.
    private struct StopReading: Error {}

    /// The records of a schema 1 journal, oldest first, each checked against its checksum.
    /// `body` may throw `StopReading` to stop.
    private func forEachSchema1Record<E: Error>(_ body: (Record) throws(E) -> Void) throws(JournalError) {
        let select = try database.prepare("SELECT seq, kind, body, key, \"check\", sum FROM inputs ORDER BY seq", doing: "reading the schema 1 inputs")
        defer { select.reset() }
        var expected: Int64 = 1
        while try select.step(doing: "reading the schema 1 inputs") {
            let seq = select.int64(0)
            let record = Record(kind: select.int64(1), body: select.bytes(2), key: select.int64(3), check: select.isNull(4) ? nil : select.int64(4))
            guard seq == expected, select.int64(5) == Self.schema1Sum(seq: seq, record) else {
                throw .corrupt(path: path, reason: seq == expected ? "input \(seq) fails its checksum" : "input \(expected) is missing")
            }
            expected += 1
            do {
                try body(record)
            } catch let error as JournalError {
                throw error
            } catch {
                return  // StopReading
            }
        }
    }

    /// A schema 1 record's checksum (FNV-1a over its sequence number, kind, key, check and body).
    static func schema1Sum(seq: Int64, _ record: Record) -> Int64 {
        var hash = FNV1a()
        hash.mix(seq)
        hash.mix(record.kind)
        hash.mix(record.key)
        hash.mix(record.check ?? 0)
        for byte in record.body { hash.mix(byte) }
        return Int64(bitPattern: hash.value)
    }

    /// A second connection to this journal for checkpoints, to be used from one other thread.
    public func makeCheckpointer() throws(JournalError) -> JournalCheckpointer {
        try JournalCheckpointer(path: path)
    }

    /// The size of the write-ahead log, in bytes (what a checkpoint would copy into the database).
    public var walBytes: Int {
        var info = stat()
        return stat(path + "-wal", &info) == 0 ? Int(info.st_size) : 0
    }

    /// Leaves the files as they are now when the journal closes: the log is not copied into the
    /// database file (for a journal refused after it was opened, about to be moved aside).
    public func leaveAsFound() {
        database.checkpointOnClose(false)
    }

    /// How many records it holds.
    public func count() throws(JournalError) -> Int {
        if schema == 1 { return Int(try database.integer("SELECT count(*) FROM inputs", doing: "counting the inputs")) }
        // Every row holds at least one input: a row that says otherwise is damage, not an empty
        // journal to append to.
        let empty = try database.integer("SELECT count(*) FROM batches WHERE inputs < 1", doing: "counting the inputs")
        guard empty == 0 else { throw .corrupt(path: path, reason: "\(empty) batches say they hold no inputs") }
        return Int(try database.integer("SELECT coalesce(sum(inputs), 0) FROM batches", doing: "counting the inputs"))
    }

    /// Forgets every record (the app finished: nothing to restore).
    public func clear() throws(JournalError) {
        try database.execute(schema == 1 ? "DELETE FROM inputs" : "DELETE FROM batches", doing: "clearing the journal")
        nextSeq = 1
    }

    /// Moves a refused journal (and its WAL and shared-memory files) aside as
    /// `PATH.refused-YYYYMMDD-HHMMSS`, so a fresh one can start; returns the new path. Never deletes.
    public static func moveAside(_ path: String, now: Date = Date()) throws(JournalError) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        formatter.timeZone = TimeZone(identifier: "UTC")
        var target = "\(path).refused-\(formatter.string(from: now))"
        var suffix = 1
        while FileManager.default.fileExists(atPath: target) {
            suffix += 1
            target = "\(path).refused-\(formatter.string(from: now))-\(suffix)"
        }
        for extra in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + extra) {
            guard rename(path + extra, target + extra) == 0 else {
                throw .cannotOpen(path: path + extra, reason: "cannot rename it to \(target + extra): \(String(cString: strerror(errno)))")
            }
        }
        return target
    }

    /// Takes the journal's lock file (exclusive, not waiting) and writes our pid in it.
    private static func takeLock(_ lockPath: String, journal: String) throws(JournalError) -> Int32 {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw .cannotOpen(path: journal, reason: "cannot create the lock file \(lockPath) next to it: \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var bytes = [UInt8](repeating: 0, count: 32)
            let count = read(fd, &bytes, bytes.count)
            close(fd)
            let pid = String(decoding: bytes.prefix(max(0, count)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw .locked(path: journal, holder: pid.isEmpty ? "another process" : "process \(pid)")
        }
        ftruncate(fd, 0)
        let pid = Array("\(getpid())\n".utf8)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return fd
    }
}
