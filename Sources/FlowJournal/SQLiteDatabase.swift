import CSQLite

#if canImport(Glibc)
import Glibc
#endif

/// One SQLite connection used from one thread, to read an older flowd's journal (`SQLiteJournal`):
/// the few calls that needs, errors mapped to `JournalError` with SQLite's own message.
final class SQLiteDatabase {
    let path: String
    private(set) var handle: OpaquePointer?

    init(path: String) throws(JournalError) {
        self.path = path
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
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
        // Closing must not copy the WAL into the database file: the journal is only read, and a
        // refused one is moved aside exactly as it was found.
        _ = csqlite_checkpoint_on_close(db, 0)
    }

    deinit { close() }

    func close() {
        sqlite3_close_v2(handle)
        handle = nil
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

    /// The error for result `code`, with SQLite's message, classified.
    func error(_ code: Int32, doing: String) -> JournalError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        switch code & 0xFF {
        case SQLITE_NOTADB: return .notAJournal(path: path, reason: message)
        case SQLITE_CORRUPT: return .corrupt(path: path, reason: message)
        case SQLITE_FULL: return .diskFull(path: path)
        case SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM: return .cannotOpen(path: path, reason: message)
        default: return .sqlite(path: path, doing: doing, code: code, message: message)
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

        /// Steps once: true when a row is ready, false when done.
        func step(doing: String) throws(JournalError) -> Bool {
            let code = sqlite3_step(handle)
            if code == SQLITE_ROW { return true }
            if code == SQLITE_DONE { return false }
            let error = database.error(code, doing: doing)
            sqlite3_reset(handle)
            throw error
        }

        /// Ready for the next run.
        func reset() {
            sqlite3_reset(handle)
        }

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
