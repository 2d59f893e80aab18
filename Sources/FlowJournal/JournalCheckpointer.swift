import CSQLite

/// Copies a journal's write-ahead log into its database file, from a thread other than the writer's:
/// SQLite's automatic checkpoint would stall the daemon's loop for milliseconds. A `PASSIVE`
/// checkpoint never waits for the writer; the log starts over once everything was copied.
/// `@unchecked Sendable`: it is handed to the one thread that uses it, and only that thread calls it.
public final class JournalCheckpointer: @unchecked Sendable {
    private let database: SQLiteDatabase

    init(path: String) throws(JournalError) {
        database = try SQLiteDatabase(path: path)
        // A connection learns that the file is in WAL mode when it first reads it.
        _ = try database.integer("PRAGMA journal_mode", doing: "opening the log")
    }

    /// Runs one passive checkpoint; returns the frames in the log and how many were copied.
    @discardableResult
    public func checkpoint() throws(JournalError) -> (logFrames: Int, copied: Int) {
        try database.checkpoint()
    }
}

extension SQLiteDatabase {
    func checkpoint() throws(JournalError) -> (logFrames: Int, copied: Int) {
        var log: Int32 = 0
        var copied: Int32 = 0
        let code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &copied)
        guard code == SQLITE_OK || code == SQLITE_BUSY else { throw error(code, doing: "checkpointing") }
        return (Int(log), Int(copied))
    }
}
