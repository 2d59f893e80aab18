import FlowJournal
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()", path, sql]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
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
        nonisolated(unsafe) let background = checkpointer  // used by that thread alone
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
