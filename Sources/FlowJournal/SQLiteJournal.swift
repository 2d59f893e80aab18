/// A journal an older flowd wrote in SQLite (docs/journal.md, "Older journals"), read as it is for a
/// restore and never written: the first write converts it into a log (`Journal`). Schema 1 holds a
/// row per input, `inputs(seq, kind, body, key, check, sum)`; schema 2 a row per batch,
/// `batches(seq, inputs, records, sum)`. Both say whose they are in `meta(key, value)`, and SQLite's
/// `application_id` marks them as flowd's.
final class SQLiteJournal {
    /// Marks the file as a flowd journal (SQLite's `application_id`, "flwd").
    static let applicationID: Int32 = 0x666C_7764
    /// The first bytes of every SQLite database file.
    static let fileHeader = Array("SQLite format 3\0".utf8)

    let path: String
    let schema: Int32
    private var database: SQLiteDatabase?

    /// Opens the SQLite journal at `path` and checks it is flowd's, of schema 1 or 2, and `identity`'s.
    /// Nothing is written: a refused file is left as it was found (its log too).
    init(path: String, identity: Journal.Identity) throws(JournalError) {
        self.path = path
        let database = try SQLiteDatabase(path: path)
        let application = Int32(truncatingIfNeeded: try database.integer("PRAGMA application_id", doing: "reading the header"))
        guard application == Self.applicationID else {
            throw .notAJournal(path: path, reason: "an SQLite database of another program (application_id \(application))")
        }
        schema = Int32(truncatingIfNeeded: try database.integer("PRAGMA user_version", doing: "reading the schema version"))
        guard schema == 1 || schema == 2 else { throw .otherSchema(path: path, found: schema, expected: Journal.schemaVersion) }
        var found: [String: String] = [:]
        let meta = try database.prepare("SELECT key, value FROM meta", doing: "reading its identity")
        while try meta.step(doing: "reading its identity") { found[meta.text(0)] = meta.text(1) }
        guard found["app"] == identity.app else {
            throw .otherApp(path: path, found: found["app"] ?? "(none)", expected: identity.app)
        }
        guard found["app_version"] == identity.appVersion else {
            throw .otherAppVersion(path: path, found: found["app_version"] ?? "(none)", expected: identity.appVersion)
        }
        self.database = database
    }

    /// Closes the connection, leaving the files as they are (the log is not copied into the database).
    func close() {
        database?.close()
        database = nil
    }

    private func open() throws(JournalError) -> SQLiteDatabase {
        guard let database else { throw .cannotOpen(path: path, reason: "the SQLite journal was closed") }
        return database
    }

    /// How many records it holds.
    func count() throws(JournalError) -> Int {
        let database = try open()
        if schema == 1 { return Int(try database.integer("SELECT count(*) FROM inputs", doing: "counting the inputs")) }
        // Every row holds at least one input: a row that says otherwise is damage, not an empty journal.
        let empty = try database.integer("SELECT count(*) FROM batches WHERE inputs < 1", doing: "counting the inputs")
        guard empty == 0 else { throw .corrupt(path: path, reason: "\(empty) batches say they hold no inputs") }
        return Int(try database.integer("SELECT coalesce(sum(inputs), 0) FROM batches", doing: "counting the inputs"))
    }

    /// Reads the records, oldest first, each batch (or schema 1 input) checked against its checksum,
    /// until `body` returns false.
    func forEachRecord(_ body: (Journal.Record) -> Bool) throws(JournalError) {
        let database = try open()
        if schema == 1 {
            try forEachSchema1Record(database, body)
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
            guard let goOn = JournalBatch.decode(bytes[...], count: Int(count), body) else {
                throw .corrupt(path: path, reason: "batch \(seq) (after input \(inputs)) does not hold the \(count) inputs it says")
            }
            guard goOn else { return }
            expected += 1
            inputs += Int(count)
        }
    }

    private func forEachSchema1Record(_ database: SQLiteDatabase, _ body: (Journal.Record) -> Bool) throws(JournalError) {
        let select = try database.prepare("SELECT seq, kind, body, key, \"check\", sum FROM inputs ORDER BY seq", doing: "reading the schema 1 inputs")
        defer { select.reset() }
        var expected: Int64 = 1
        while try select.step(doing: "reading the schema 1 inputs") {
            let seq = select.int64(0)
            let record = Journal.Record(kind: select.int64(1), body: select.bytes(2), key: select.int64(3), check: select.isNull(4) ? nil : select.int64(4))
            guard seq == expected, select.int64(5) == Self.schema1Sum(seq: seq, record) else {
                throw .corrupt(path: path, reason: seq == expected ? "input \(seq) fails its checksum" : "input \(expected) is missing")
            }
            expected += 1
            guard body(record) else { return }
        }
    }

    /// A schema 1 record's checksum (FNV-1a over its sequence number, kind, key, check and body).
    static func schema1Sum(seq: Int64, _ record: Journal.Record) -> Int64 {
        var hash = FNV1a()
        hash.mix(seq)
        hash.mix(record.kind)
        hash.mix(record.key)
        hash.mix(record.check ?? 0)
        for byte in record.body { hash.mix(byte) }
        return Int64(bitPattern: hash.value)
    }
}
