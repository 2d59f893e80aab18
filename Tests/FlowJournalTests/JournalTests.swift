@testable import FlowJournal
import FlowdTestSupport
import Foundation
import Testing

/// The journal store on real files: records in order across reopenings, one transaction per batch,
/// and every bad file refused with the file kept.
@Suite struct JournalTests {
    static let identity = Journal.Identity(app: "launcher", appVersion: "1")

    static func path() -> String { makeTemporaryDirectory() + "/launcher.journal" }

    static func record(_ n: Int) -> Journal.Record { Journal.Record(kind: Int64(n % 3), body: Array("input \(n)".utf8)) }

    @Test func recordsComeBackInOrderAfterReopening() throws {
        let path = Self.path()
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            try journal.append((0..<100).map(Self.record))
            try journal.append([Journal.Record(kind: 9, body: [])])
        }
        let journal = try Journal(path: path, identity: Self.identity)
        let records = try journal.records()
        #expect(records.count == 101)
        #expect(Array(records.prefix(100)) == (0..<100).map(Self.record))
        #expect(records.last == Journal.Record(kind: 9, body: []))
        try journal.clear()
        #expect(try journal.count() == 0)
    }

    @Test func aBatchIsOneRowAndKeepsEveryRecordsKeyAndCheck() throws {
        let path = Self.path()
        let batch = [
            Journal.Record(kind: 1, body: [], key: -1),
            Journal.Record(kind: 7, body: Array(repeating: 0xFF, count: 300), key: Int64.max, check: Int64.min),
            Journal.Record(kind: 10, body: [0x80, 0x01], key: 0, check: 42),
        ]
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            try journal.append(batch)
            try journal.append([Self.record(3)])
            #expect(try journal.count() == 4)
        }
        #expect(try Journal(path: path, identity: Self.identity).records() == batch + [Self.record(3)])
        let rows = try Self.sqlite(path, query: "SELECT count(*), sum(inputs) FROM batches")
        #expect(rows == "2|4", "one row per batch")
    }

    @Test func aRowWhoseBytesDoNotHoldItsInputsIsDamaged() throws {
        let path = Self.path()
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            try journal.append([Self.record(1), Self.record(2)])
        }
        // A row that says three inputs, with a checksum that matches: only the decoding can tell.
        let bytes = JournalBatch.encode([Self.record(1), Self.record(2)])
        let sum = JournalBatch.sum(seq: 1, count: 3, bytes: bytes)
        try Self.sqlite(path, "UPDATE batches SET inputs = 3, sum = \(sum) WHERE seq = 1;")
        #expect(throws: JournalError.corrupt(path: path, reason: "batch 1 (after input 0) does not hold the 3 inputs it says")) {
            try Journal(path: path, identity: Self.identity).records()
        }
        try Self.sqlite(path, "UPDATE batches SET inputs = 2 WHERE seq = 1;")
        #expect(throws: JournalError.corrupt(path: path, reason: "batch 1 (after input 0) fails its checksum")) {
            try Journal(path: path, identity: Self.identity).records()
        }
    }

    /// A journal of schema 1 (a row per input), as the flowd before batches wrote it.
    static func schema1Journal(at path: String, _ records: [Journal.Record], damaged: Bool = false) throws {
        var sql = """
            PRAGMA page_size=1024; PRAGMA application_id=\(0x666C_7764); PRAGMA user_version=1;
            CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE inputs(seq INTEGER PRIMARY KEY, kind INTEGER NOT NULL, body BLOB NOT NULL, key INTEGER NOT NULL, "check" INTEGER, sum INTEGER NOT NULL);
            INSERT INTO meta VALUES ('app', '\(identity.app)'), ('app_version', '\(identity.appVersion)');
            PRAGMA journal_mode=WAL;
            """
        for (index, record) in records.enumerated() {
            let seq = Int64(index + 1)
            let hex = record.body.map { String(format: "%02x", $0) }.joined()
            let sum = Journal.schema1Sum(seq: seq, record) &+ (damaged && index == 1 ? 1 : 0)
            sql += "INSERT INTO inputs VALUES (\(seq), \(record.kind), x'\(hex)', \(record.key), \(record.check.map(String.init) ?? "NULL"), \(sum));\n"
        }
        try sqlite(path, sql)
    }

    @Test func aSchema1JournalIsReadAsItIsAndConvertedWithItsBatchesAtItsFirstWrite() throws {
        let path = Self.path()
        var records = (0..<7).map(Self.record)
        records[2].check = 11  // batches: 0...2, 3...5, and 6 (a batch cut short by a crash has no check)
        records[5].check = 12
        records[4].key = 99
        try Self.schema1Journal(at: path, records)
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            #expect(try journal.records() == records)
            #expect(try journal.count() == 7)
        }
        // Opened and read (a restore): still schema 1, byte for byte a file an older flowd reads.
        #expect(try Self.sqlite(path, query: "PRAGMA user_version") == "1")
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            try journal.append([Self.record(7)])
        }
        #expect(try Self.sqlite(path, query: "PRAGMA user_version") == "2")
        #expect(try Self.sqlite(path, query: "SELECT group_concat(inputs) FROM batches") == "3,3,1,1")
        #expect(try Journal(path: path, identity: Self.identity).records() == records + [Self.record(7)])
    }

    @Test func aDamagedSchema1JournalIsRefusedAndKeptAsItWas() throws {
        let path = Self.path()
        try Self.schema1Journal(at: path, (0..<3).map(Self.record), damaged: true)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            #expect(throws: JournalError.corrupt(path: path, reason: "input 2 fails its checksum")) { try journal.records() }
            #expect(throws: JournalError.corrupt(path: path, reason: "input 2 fails its checksum")) { try journal.append([Self.record(3)]) }
            journal.leaveAsFound()
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the file is untouched")
        #expect(try Self.sqlite(path, query: "PRAGMA user_version") == "1")
    }

    @Test func aBatchLargerThanARowIsWrittenAsSeveralRowsInOneTransaction() throws {
        let path = Self.path()
        let big = (0..<5).map { Journal.Record(kind: 8, body: Array(repeating: UInt8($0), count: Journal.maxRowBytes / 2), key: Int64($0)) }
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            try journal.append(big)
            try journal.append([Self.record(1)])
            #expect(try journal.count() == 6)
        }
        #expect(try Journal(path: path, identity: Self.identity).records() == big + [Self.record(1)])
        let rows = Int(try Self.sqlite(path, query: "SELECT count(*) FROM batches")) ?? 0
        #expect(rows >= 4, "no row over \(Journal.maxRowBytes) bytes: \(rows) rows")
        #expect(try Self.sqlite(path, query: "SELECT max(length(records)) FROM batches").count > 0)
        let largest = Int(try Self.sqlite(path, query: "SELECT max(length(records)) FROM batches")) ?? .max
        #expect(largest <= Journal.maxRowBytes)
    }

    @Test func aRowThatSaysItHoldsNoInputsIsDamageNotAnEmptyJournal() throws {
        let path = Self.path()
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            try journal.append([Self.record(1)])
        }
        try Self.sqlite(path, "UPDATE batches SET inputs = 0 WHERE seq = 1;")
        #expect(throws: JournalError.corrupt(path: path, reason: "1 batches say they hold no inputs")) {
            try Journal(path: path, identity: Self.identity).count()
        }
    }

    @Test func aSecondOpenerIsRefusedWhileTheFirstHoldsIt() throws {
        let path = Self.path()
        let first = try Journal(path: path, identity: Self.identity)
        #expect(throws: JournalError.locked(path: path, holder: "process \(getpid())")) { try Journal(path: path, identity: Self.identity) }
        _ = first
    }

    @Test func anotherAppsOrVersionsJournalIsRefusedAndKept() throws {
        let path = Self.path()
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            try journal.append([Self.record(1)])
        }
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(throws: JournalError.otherApp(path: path, found: "launcher", expected: "tutorial")) {
            try Journal(path: path, identity: .init(app: "tutorial", appVersion: "1"))
        }
        #expect(throws: JournalError.otherAppVersion(path: path, found: "1", expected: "2")) {
            try Journal(path: path, identity: .init(app: "launcher", appVersion: "2"))
        }
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == size, "kept as it was")
        #expect(try Journal(path: path, identity: Self.identity).records() == [Self.record(1)])
    }

    @Test func aFileThatIsNotAJournalIsRefusedAndKept() throws {
        let path = Self.path()
        let text = Data(String(repeating: "not a database\n", count: 300).utf8)
        try text.write(to: URL(fileURLWithPath: path))
        do {
            _ = try Journal(path: path, identity: Self.identity)
            Issue.record("opened a text file as a journal")
        } catch {
            guard case .notAJournal = error else { Issue.record("\(error)"); return }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == text, "the file is untouched")
        let aside = try Journal.moveAside(path)
        #expect(FileManager.default.fileExists(atPath: aside) && !FileManager.default.fileExists(atPath: path))
        #expect(try Journal(path: path, identity: Self.identity).count() == 0, "a fresh start after moving it aside")
    }

    @Test func anotherProgramsDatabaseIsNotAJournal() throws {
        let path = Self.path()
        do {
            // A journal whose application id another program changed: any SQLite file not ours.
            let journal = try Journal(path: path, identity: Self.identity)
            _ = journal
        }
        try Self.sqlite(path, "PRAGMA application_id=42;")
        #expect(throws: JournalError.notAJournal(path: path, reason: "an SQLite database of another program (application_id 42)")) {
            try Journal(path: path, identity: Self.identity)
        }
    }

    @Test func aNewJournalAndItsLogAreTheOwnersOnly() throws {
        let path = Self.path()
        let journal = try Journal(path: path, identity: Self.identity)
        try journal.append([Self.record(1)])
        for file in [path, path + "-wal", path + ".lock"] {
            let mode = try #require(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0, "\(file) is \(String(mode, radix: 8)): inputs are what users typed")
        }
    }

    @Test func aDirectoryWeCannotWriteIsACleanError() throws {
        let directory = makeTemporaryDirectory()
        chmod(directory, 0o500)
        defer { chmod(directory, 0o700) }
        guard getuid() != 0 else { return }  // root writes anywhere: nothing to prove
        do {
            _ = try Journal(path: directory + "/j", identity: Self.identity)
            Issue.record("opened a journal in a read-only directory")
        } catch {
            guard case .cannotOpen = error else { Issue.record("\(error)"); return }
        }
    }

    /// Runs SQL on `path` with the sqlite3 library through a second journal-less connection.
    static func sqlite(_ path: String, _ sql: String) throws {
        _ = try run(["import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()", path, sql])
    }

    /// The first row `query` gives on `path`, its columns joined with "|".
    static func sqlite(_ path: String, query: String) throws -> String {
        try run(["import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print('|'.join(map(str, c.execute(sys.argv[2]).fetchone())))", path, query])
    }

    private static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c"] + arguments
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Power loss: the journal's files cut short as a crash in the middle of a write would leave them.
@Suite struct JournalPowerLossTests {
    static let identity = JournalTests.identity
    static let batches = 12
    static let perBatch = 5

    /// The records appended by the first `n` batches.
    static func expected(batches n: Int) -> [Journal.Record] {
        (0..<(n * perBatch)).map(JournalTests.record)
    }

    /// A journal with `batches` committed batches, copied (database and WAL) while its writer still
    /// has it open — what the disk holds when the power goes.
    static func crashedCopy() throws -> (directory: String, database: [UInt8], wal: [UInt8]) {
        let path = JournalTests.path()
        let journal = try Journal(path: path, identity: identity)
        for batch in 0..<batches {
            try journal.append((batch * perBatch..<(batch + 1) * perBatch).map(JournalTests.record))
        }
        let database = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let wal = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path + "-wal")))
        _ = journal
        return (makeTemporaryDirectory(), database, wal)
    }

    /// Opens a journal made of these bytes: nil if refused (then the files must be as written).
    static func open(_ database: [UInt8], wal: [UInt8]?, in directory: String, name: String) throws -> [Journal.Record]? {
        let path = directory + "/" + name
        try Data(database).write(to: URL(fileURLWithPath: path))
        if let wal { try Data(wal).write(to: URL(fileURLWithPath: path + "-wal")) }
        do {
            let journal = try Journal(path: path, identity: identity)
            return try journal.records()
        } catch {
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == database, "a refused journal is kept: \(error)")
            return nil
        }
    }

    @Test func aWALCutAtAnyFrameRestoresWholeBatchesInOrder() throws {
        let crash = try Self.crashedCopy()
        let pageSize = Journal.pageSize, frame = 24 + pageSize, header = 32
        #expect((crash.wal.count - header) % frame == 0, "the WAL holds whole frames")
        var cuts = Array(stride(from: 0, through: crash.wal.count, by: frame).map { min($0 + header, crash.wal.count) })
        cuts += [0, header / 2, header + frame / 2, crash.wal.count - 1]  // torn writes inside a header or a page
        var seen: Set<Int> = []
        for (index, cut) in cuts.enumerated() {
            guard let records = try Self.open(crash.database, wal: Array(crash.wal.prefix(cut)), in: crash.directory, name: "cut\(index)")
            else { Issue.record("a WAL cut at \(cut) was refused; an earlier state was expected"); continue }
            #expect(records.count % Self.perBatch == 0, "whole batches only, cut at \(cut): \(records.count) records")
            #expect(records == Self.expected(batches: records.count / Self.perBatch), "a prefix in order, cut at \(cut)")
            seen.insert(records.count / Self.perBatch)
        }
        #expect(seen.contains(Self.batches), "the whole WAL restores every batch")
        #expect(seen.count > 2, "cuts restore earlier states: \(seen.sorted())")
    }

    @Test func aDatabaseFileCutAtAPageBoundaryIsRefusedAndKeptOrRestoresAnEarlierState() throws {
        // Checkpointed journal (no WAL): every page boundary of the file, and a torn page.
        let path = JournalTests.path()
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            for batch in 0..<40 { try journal.append((batch * 50..<(batch + 1) * 50).map(JournalTests.record)) }
        }
        let database = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let directory = makeTemporaryDirectory()
        var refused = 0
        let cuts = Array(stride(from: 0, to: database.count, by: Journal.pageSize)) + [database.count - 100]
        for (index, cut) in cuts.enumerated() {
            let records = try Self.open(Array(database.prefix(cut)), wal: nil, in: directory, name: "page\(index)")
            if let records {
                let expected = (0..<records.count).map(JournalTests.record)
                let firstDifference = records.indices.first { $0 >= expected.count || records[$0] != expected[$0] }
                #expect(firstDifference == nil, "a prefix in order when it opens, cut at \(cut): \(records.count) records, the first different at \(firstDifference ?? -1)")
            } else {
                refused += 1
            }
        }
        #expect(refused > 0, "a truncated database is noticed")
    }
}

/// Checkpoints run off the writer's thread while it keeps appending.
@Suite struct JournalCheckpointTests {
    @Test func aCheckpointerOnAnotherThreadCopiesTheLogWhileTheWriterGoesOn() throws {
        let path = JournalTests.path()
        let journal = try Journal(path: path, identity: JournalTests.identity)
        let checkpointer = try journal.makeCheckpointer()
        try journal.append((0..<2_000).map(JournalTests.record))
        #expect(journal.walBytes > 0, "no automatic checkpoint: the log holds the inputs")
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var copied: [(Int, Int)] = []
        let background = checkpointer  // used by that thread alone
        let thread = Thread {
            for _ in 0..<20 {
                if let result = try? background.checkpoint() { copied.append(result) }
                usleep(2_000)
            }
            done.signal()
        }
        thread.start()
        for batch in 0..<40 { try journal.append((2_000 + batch * 10..<2_000 + (batch + 1) * 10).map(JournalTests.record)) }
        done.wait()
        #expect(copied.contains { $0.1 > 0 }, "frames were copied into the database: \(copied)")
        let final = try checkpointer.checkpoint()
        #expect(final.logFrames == final.copied, "a checkpoint with the writer idle copies everything")
        #expect(try journal.records() == (0..<2_400).map(JournalTests.record))
    }
}
