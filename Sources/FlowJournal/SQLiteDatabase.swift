import CSQLite

#if canImport(Glibc)
import Glibc
#endif

/// One SQLite connection used from one thread (the daemon's loop): the few calls the journal needs,
/// errors mapped to `JournalError` with SQLite's own message. Statements are prepared once.
final class SQLiteDatabase {
    let path: String
    private(set) var handle: OpaquePointer?

    init(path: String) throws(JournalError) {
        self.path = path
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            // SQLite says "unable to open database file"; the system's reason says why.
            let reason = switch db.map({ sqlite3_system_errno($0) }) ?? 0 {
            case 0: message
            case EISDIR: "it is a directory"
            case let number: "\(message): \(String(cString: strerror(number)))"
            }
            sqlite3_close_v2(db)
            throw .cannotOpen(path: path, reason: reason)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        checkpointOnClose(false)
    }

    /// Whether closing checkpoints the WAL into the database file (off until the file is known good).
    func checkpointOnClose(_ on: Bool) {
        _ = csqlite_checkpoint_on_close(handle, on ? 1 : 0)
    }

    deinit { close() }

    func close() {
        sqlite3_close_v2(handle)
        handle = nil
    }

    /// Runs SQL without results.
    func execute(_ sql: String, doing: String) throws(JournalError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, doing: doing) }
    }

    /// The integer the first column of the first row of `sql` holds.
    func integer(_ sql: String, doing: String) throws(JournalError) -> Int64 {
        let statement = try prepare(sql, doing: doing)
        guard try statement.step(doing: doing) else { return 0 }
        return statement.int64(0)
    }

    func prepare(_ sql: String, doing: String) throws(JournalError) -> Statement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw error(code, doing: doing) }
        return Statement(database: self, handle: statement)
    }

    /// Whether SQLite opened the file read-only (it does so silently when the file cannot be written:
    /// `sqlite3_db_readonly`).
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// The error for result `code`, with SQLite's message, classified.
    func error(_ code: Int32, doing: String) -> JournalError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        switch code & 0xFF {
        case SQLITE_NOTADB: return .notAJournal(path: path, reason: message)
        case SQLITE_CORRUPT: return .corrupt(path: path, reason: message)
        case SQLITE_FULL: return .diskFull(path: path)
        // SQLite reports SQLITE_FULL for ENOSPC only; a write past the file size limit (EFBIG) is an I/O
        // error to it, and the same thing to the user.
        case SQLITE_IOERR where reachedFileSizeLimit(code): return .fileTooLarge(path: path)
        case SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM: return .cannotOpen(path: path, reason: message)
        default: return .sqlite(path: path, doing: doing, code: code, message: message)
        }
    }

    /// Whether the database or its log has grown to the process's file size limit (`ulimit -f`;
    /// none: `rlim_t.max`): a write past it fails with EFBIG once the file is exactly that long. (The
    /// errno SQLite keeps, `sqlite3_system_errno`, is read after the rollback: often a later call's.)
    /// The log's index (`-shm`) grows 32 KiB at a time: under a smaller limit it cannot be made
    /// (SQLITE_IOERR_SHMSIZE, a macro Swift does not import).
    private func reachedFileSizeLimit(_ code: Int32) -> Bool {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return false }
        if code == SQLITE_IOERR | (19 << 8) && limit.rlim_cur < 32_768 { return true }
        return [path, path + "-wal"].contains { file in
            var info = stat()
            return stat(file, &info) == 0 && UInt64(info.st_size) >= UInt64(limit.rlim_cur)
        }
    }

    /// A prepared statement.
    final class Statement {
        private unowned let database: SQLiteDatabase
        private let handle: OpaquePointer

        init(database: SQLiteDatabase, handle: OpaquePointer) {
            self.database = database
            self.handle = handle
        }

        deinit { sqlite3_finalize(handle) }

        func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }

        func bind(_ index: Int32, _ value: String) { sqlite3_bind_text(handle, index, value, -1, csqlite_transient()) }

        func bind(_ index: Int32, _ bytes: [UInt8]) {
            // An empty array has no base address, which SQLite would bind as NULL.
            guard !bytes.isEmpty else {
                sqlite3_bind_zeroblob(handle, index, 0)
                return
            }
            _ = bytes.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), csqlite_transient()) }
        }

        /// Steps once: true when a row is ready, false when done.
        func step(doing: String) throws(JournalError) -> Bool {
            let code = sqlite3_step(handle)
            if code == SQLITE_ROW { return true }
            if code == SQLITE_DONE { return false }
            let error = database.error(code, doing: doing)
            sqlite3_reset(handle)
            throw error
        }

        /// Ready for the next run (bindings cleared).
        func reset() {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }

        func bindNull(_ index: Int32) { sqlite3_bind_null(handle, index) }

        func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

        func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

        func text(_ column: Int32) -> String {
            guard let text = sqlite3_column_text(handle, column) else { return "" }
            return String(cString: text)
        }

        func bytes(_ column: Int32) -> [UInt8] {
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let blob = sqlite3_column_blob(handle, column) else { return [] }
            return Array(UnsafeRawBufferPointer(start: blob, count: count))
        }
    }
}
