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

    @Test func aRewriteReplacesEveryRecordWholeAndAppendsGoOnAfterIt() throws {
        let path = Self.path()
        let checkpoint = [Journal.Record(kind: 65, body: [1, 2, 3]), Journal.Record(kind: 64, body: Array("menu".utf8), check: 7)]
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            for n in 0..<50 { try journal.append([Self.record(n)]) }
            let before = journal.size
            try journal.rewrite(checkpoint)
            #expect(journal.size < before)
            #expect(try journal.records() == checkpoint)
            try journal.append([Self.record(50)])
            // A second daemon is still refused: the lock was held throughout.
            #expect(throws: JournalError.self) { _ = try Journal(path: path, identity: Self.identity) }
        }
        #expect(!FileManager.default.fileExists(atPath: path + ".new"), "the new log took the journal's name")
        let journal = try Journal(path: path, identity: Self.identity)
        #expect(try journal.records() == checkpoint + [Self.record(50)], "reopened: the checkpoint, then what followed it")
        #expect(try LogFile(path).frames.map(\.seq) == [1, 2], "the rewritten log numbers its frames from 1")
    }

    @Test func aBatchIsOneFrameAndKeepsEveryRecordsKeyAndCheck() throws {
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
        let file = try LogFile(path)
        #expect(file.app == "launcher" && file.version == "1" && file.schema == 3)
        #expect(file.frames.map(\.count) == [3, 1], "one frame per batch")
        #expect(file.frames.map(\.seq) == [1, 2])
        #expect(file.frames[0].bytes == JournalBatch.encode(batch), "the records as docs/journal.md lays them out")
        #expect(file.bytes.count == file.headerBytes + 2 * 24 + JournalBatch.encode(batch).count + JournalBatch.encode([Self.record(3)]).count)
    }

    @Test func aFrameWhoseBytesDoNotHoldItsInputsIsDamaged() throws {
        let path = Self.path()
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            try journal.append([Self.record(1), Self.record(2)])
        }
        // A frame that says three inputs, with a checksum that matches: only the decoding can tell.
        var file = try LogFile(path)
        file.frames[0].count = 3
        try file.write(to: path)
        #expect(throws: JournalError.corrupt(path: path, reason: "batch 1 (after input 0) does not hold the 3 inputs it says")) {
            try Journal(path: path, identity: Self.identity).records()
        }
    }

    @Test func aBadFrameWithGoodFramesAfterItIsRefusedAndKept() throws {
        let path = Self.path()
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            for batch in 0..<5 { try journal.append([Self.record(batch), Self.record(batch + 10)]) }
        }
        let good = try LogFile(path)
        let directory = makeTemporaryDirectory()
        // One byte changed anywhere in a frame but the last: its header (length, count, sequence
        // number, checksum) or its records.
        for frame in 0..<4 {
            let start = good.offsets[frame]
            for offset in [start, start + 4, start + 8, start + 16, start + 24, good.offsets[frame + 1] - 1] {
                var bytes = good.bytes
                bytes[offset] ^= 0x40
                let copy = directory + "/frame\(frame)-\(offset).journal"
                try Data(bytes).write(to: URL(fileURLWithPath: copy))
                do {
                    let records = try Journal(path: copy, identity: Self.identity).records()
                    Issue.record("byte \(offset) of frame \(frame) changed, and \(records.count) records were read")
                } catch {
                    guard case .corrupt(_, let reason) = error, reason.contains("later batches follow it") || reason.contains("does not hold") else {
                        Issue.record("byte \(offset) of frame \(frame): \(error)")
                        continue
                    }
                }
                #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: copy))) == bytes, "kept as it was")
            }
        }
    }

    @Test func aHeaderThatFailsItsChecksumOrSaysAnotherSchemaIsRefusedAndKept() throws {
        let path = Self.path()
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            try journal.append([Self.record(1)])
        }
        let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var bytes = good
        bytes[17] ^= 1  // a letter of the app's name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: JournalError.corrupt(path: path, reason: "its header fails its checksum")) { try Journal(path: path, identity: Self.identity) }
        bytes = good
        bytes[8] = 4  // a later flowd's schema
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: JournalError.otherSchema(path: path, found: 4, expected: 3)) { try Journal(path: path, identity: Self.identity) }
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == bytes, "kept as it was")
        let header = try LogFile(path).headerBytes
        for cut in [8, 12, 16, header - 1] {
            try Data(good.prefix(cut)).write(to: URL(fileURLWithPath: path))
            #expect(throws: JournalError.corrupt(path: path, reason: "its header is cut short"), "cut at \(cut)") { try Journal(path: path, identity: Self.identity) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == cut, "kept as it was")
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
            let sum = SQLiteJournal.schema1Sum(seq: seq, record) &+ (damaged && index == 1 ? 1 : 0)
            sql += "INSERT INTO inputs VALUES (\(seq), \(record.kind), x'\(hex(record.body))', \(record.key), \(record.check.map(String.init) ?? "NULL"), \(sum));\n"
        }
        try sqlite(path, sql)
    }

    /// A journal of schema 2 (an SQLite row per batch), as the flowd before the log wrote it; `inputs`
    /// overrides what a row says it holds.
    static func schema2Journal(at path: String, _ batches: [[Journal.Record]], inputs: [Int64]? = nil) throws {
        var sql = """
            PRAGMA page_size=1024; PRAGMA application_id=\(0x666C_7764); PRAGMA user_version=2;
            CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE batches(seq INTEGER PRIMARY KEY, inputs INTEGER NOT NULL, records BLOB NOT NULL, sum INTEGER NOT NULL);
            INSERT INTO meta VALUES ('app', '\(identity.app)'), ('app_version', '\(identity.appVersion)');
            PRAGMA journal_mode=WAL;
            """
        for (index, batch) in batches.enumerated() {
            let seq = Int64(index + 1), bytes = JournalBatch.encode(batch)
            let count = inputs?[index] ?? Int64(batch.count)
            sql += "INSERT INTO batches VALUES (\(seq), \(count), x'\(hex(bytes))', \(JournalBatch.sum(seq: seq, count: count, bytes: bytes)));\n"
        }
        try sqlite(path, sql)
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// The SQLite journals a conversion kept next to `path`.
    static func keptSQLite(_ path: String) throws -> [String] {
        let directory = (path as NSString).deletingLastPathComponent, name = (path as NSString).lastPathComponent
        return try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(name + ".sqlite-") }.sorted()
    }

    @Test(arguments: [1, 2])
    func anSQLiteJournalIsReadAsItIsAndConvertedIntoALogAtItsFirstWrite(schema: Int) throws {
        let path = Self.path()
        var records = (0..<7).map(Self.record)
        records[2].check = 11  // batches: 0...2, 3...5, and 6 (a batch cut short by a crash has no check)
        records[5].check = 12
        records[4].key = 99
        if schema == 1 {
            try Self.schema1Journal(at: path, records)
        } else {
            try Self.schema2Journal(at: path, [Array(records[0...2]), Array(records[3...5]), [records[6]]])
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        // SQLite's log as found (an empty one is as good as none: SQLite makes one when it opens).
        func wal(_ path: String) -> Data? { (try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))).flatMap { $0.isEmpty ? nil : $0 } }
        let log = wal(path)
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            #expect(journal.schema == Int32(schema))
            #expect(try journal.records() == records)
            #expect(try journal.count() == 7)
        }
        // Opened and read (a restore): byte for byte a file an older flowd reads.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try Self.sqlite(path, query: "PRAGMA user_version") == "\(schema)")
        // A conversion that crashed once left its scratch file: it is written over.
        try Data("half a log".utf8).write(to: URL(fileURLWithPath: path + ".new"))
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            try journal.append([Self.record(7)])
            let aside = try #require(journal.takeConvertedAside())
            #expect(journal.takeConvertedAside() == nil, "told once")
            #expect(journal.schema == 3)
            #expect(try Data(contentsOf: URL(fileURLWithPath: aside)) == before, "the SQLite journal is kept beside, as it was")
            #expect(wal(aside) == log, "with its log")
        }
        let kept = try Self.keptSQLite(path)
        #expect(kept.count == 2 && kept[1] == kept[0] + "-wal", "the database and its log (SQLite made one when it opened): \(kept)")
        for gone in [".new", "-wal", "-shm"] { #expect(!FileManager.default.fileExists(atPath: path + gone), "\(gone) is gone") }
        #expect(try LogFile(path).frames.map(\.count) == [3, 3, 1, 1], "the old batches, then the new one")
        #expect(try Journal(path: path, identity: Self.identity).records() == records + [Self.record(7)])
    }

    @Test func clearingAnSQLiteJournalConvertsItIntoAnEmptyLog() throws {
        let path = Self.path()
        try Self.schema2Journal(at: path, [[Self.record(1)]])
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            try journal.clear()
            #expect(try journal.count() == 0)
        }
        #expect(try LogFile(path).frames.isEmpty)
        #expect(try Self.keptSQLite(path).count >= 1)
    }

    @Test func aDamagedSQLiteJournalIsRefusedAndKeptAsItWas() throws {
        let path = Self.path()
        try Self.schema1Journal(at: path, (0..<3).map(Self.record), damaged: true)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            #expect(throws: JournalError.corrupt(path: path, reason: "input 2 fails its checksum")) { try journal.records() }
            #expect(throws: JournalError.corrupt(path: path, reason: "input 2 fails its checksum")) { try journal.append([Self.record(3)]) }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the file is untouched")
        #expect(try Self.sqlite(path, query: "PRAGMA user_version") == "1")
        #expect(try Self.keptSQLite(path).isEmpty && !FileManager.default.fileExists(atPath: path + ".new"), "no conversion left behind")

        let other = Self.path()
        try Self.schema2Journal(at: other, [[Self.record(1), Self.record(2)], [Self.record(3)]], inputs: [3, 0])
        let journal = try Journal(path: other, identity: Self.identity)
        #expect(throws: JournalError.corrupt(path: other, reason: "1 batches say they hold no inputs")) { try journal.count() }
        #expect(throws: JournalError.corrupt(path: other, reason: "batch 1 (after input 0) does not hold the 3 inputs it says")) { try journal.records() }
    }

    @Test func aLargeBatchIsOneFrame() throws {
        let path = Self.path()
        let big = (0..<5).map { Journal.Record(kind: 8, body: Array(repeating: UInt8($0), count: 1 << 19), key: Int64($0)) }
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            try journal.append(big)
            try journal.append([Self.record(1)])
            #expect(try journal.count() == 6)
        }
        #expect(try Journal(path: path, identity: Self.identity).records() == big + [Self.record(1)])
        #expect(try LogFile(path).frames.map(\.count) == [5, 1])
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
            #expect(error == .notAJournal(path: path, reason: "neither a flowd journal nor an SQLite database"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == text, "the file is untouched")
        let aside = try Journal.moveAside(path)
        #expect(FileManager.default.fileExists(atPath: aside) && !FileManager.default.fileExists(atPath: path))
        #expect(try Journal(path: path, identity: Self.identity).count() == 0, "a fresh start after moving it aside")
    }

    @Test func anotherProgramsDatabaseIsNotAJournal() throws {
        let path = Self.path()
        try Self.sqlite(path, "PRAGMA application_id=42; CREATE TABLE notes(text);")
        #expect(throws: JournalError.notAJournal(path: path, reason: "an SQLite database of another program (application_id 42)")) {
            try Journal(path: path, identity: Self.identity)
        }
    }

    @Test func aNewJournalAndItsLogAreTheOwnersOnly() throws {
        let path = Self.path()
        let journal = try Journal(path: path, identity: Self.identity)
        try journal.append([Self.record(1)])
        for file in [path, path + ".lock"] {
            let mode = try #require(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0, "\(file) is \(String(mode, radix: 8)): inputs are what users typed")
        }
    }

    @Test func aPathWeCannotCreateIsACleanError() throws {
        let directory = makeTemporaryDirectory()
        // A file where the journal's directory should be: refused for every user, root included.
        let file = directory + "/not-a-directory"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        do {
            _ = try Journal(path: file + "/j", identity: Self.identity)
            Issue.record("opened a journal under a regular file")
        } catch {
            guard case .cannotOpen = error else { Issue.record("\(error)"); return }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data("x".utf8), "the file in the way is untouched")
        // A directory without write permission: only a user other than root is refused (root writes anywhere).
        chmod(directory, 0o500)
        defer { chmod(directory, 0o700) }
        if getuid() != 0 {
            do {
                _ = try Journal(path: directory + "/j", identity: Self.identity)
                Issue.record("opened a journal in a read-only directory")
            } catch {
                guard case .cannotOpen = error else { Issue.record("\(error)"); return }
            }
        }
    }

    // MARK: Who can change it (docs/journal.md)

    /// A file outside the journal's directory that a planted link points to, with bytes to compare.
    static func victim() -> (path: String, bytes: Data) {
        let path = makeTemporaryDirectory() + "/victim"
        let bytes = Data("root:x:0:0:the victim's own bytes\n".utf8)
        #expect(FileManager.default.createFile(atPath: path, contents: bytes))
        return (path, bytes)
    }

    static func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test func aPlantedLockLinkIsRefusedAndItsTargetUnchanged() throws {
        let path = Self.path()
        let victim = Self.victim()
        try FileManager.default.createSymbolicLink(atPath: path + ".lock", withDestinationPath: victim.path)
        do {
            _ = try Journal(path: path, identity: Self.identity)
            Issue.record("opened a journal whose lock file is a link")
        } catch {
            guard case .unsafe(path, let reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains("its lock file \(path).lock is a symbolic link (to \(victim.path))"), "\(reason)")
            #expect(reason.contains("remove the link (rm \(path).lock)"), "\(reason)")
        }
        #expect(Self.contents(victim.path) == victim.bytes, "the file the link points to is untouched")
        #expect(Journal.isLink(path + ".lock"), "the link is kept for the user to look at")
        #expect(!FileManager.default.fileExists(atPath: path), "no journal was created")
    }

    @Test func aPlantedNewLinkIsRefusedAtCreationAndCompaction() throws {
        let path = Self.path()
        let victim = Self.victim()
        try FileManager.default.createSymbolicLink(atPath: path + ".new", withDestinationPath: victim.path)
        // A new journal is written to PATH.new first.
        do {
            _ = try Journal(path: path, identity: Self.identity)
            Issue.record("created a journal through a link")
        } catch {
            guard case .unsafe(path, let reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains("its temporary file \(path).new is a symbolic link (to \(victim.path))"), "\(reason)")
        }
        #expect(Self.contents(victim.path) == victim.bytes)
        #expect(Journal.isLink(path + ".new") && !FileManager.default.fileExists(atPath: path))

        // A compaction too: the rewrite is refused, the log goes on as it was.
        try FileManager.default.removeItem(atPath: path + ".new")
        let journal = try Journal(path: path, identity: Self.identity)
        try journal.append([Self.record(1), Self.record(2)])
        try FileManager.default.createSymbolicLink(atPath: path + ".new", withDestinationPath: victim.path)
        #expect(throws: JournalError.self) { try journal.rewrite([Self.record(3)]) }
        #expect(Self.contents(victim.path) == victim.bytes)
        try journal.append([Self.record(4)])
        #expect(try journal.records() == [Self.record(1), Self.record(2), Self.record(4)])
    }

    @Test func aNewFileACrashLeftIsReplaced() throws {
        let path = Self.path()
        #expect(FileManager.default.createFile(atPath: path + ".new", contents: Data("half a journal".utf8)))
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            try journal.append([Self.record(1)])
            #expect(FileManager.default.createFile(atPath: path + ".new", contents: Data("half a checkpoint".utf8)))
            try journal.rewrite([Self.record(2)])
        }
        #expect(try Journal(path: path, identity: Self.identity).records() == [Self.record(2)])
        #expect(!FileManager.default.fileExists(atPath: path + ".new"))
    }

    @Test func aDirectoryOthersCanWriteIsRefused() throws {
        let directory = makeTemporaryDirectory()
        let path = directory + "/launcher.journal"
        for mode: mode_t in [0o777, 0o1777, 0o770] {
            chmod(directory, mode)
            do {
                _ = try Journal(path: path, identity: Self.identity)
                Issue.record("opened a journal in a directory of mode \(String(mode, radix: 8))")
            } catch {
                guard case .unsafe(path, let reason) = error else { Issue.record("\(error)"); return }
                #expect(reason.contains("its directory \(directory) has mode \(String(mode, radix: 8)) and is writable by group or others"), "\(reason)")
                #expect(reason.contains("chmod go-w \(directory)"), "\(reason)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty, "nothing created")
        }
        chmod(directory, 0o755)
        #expect(try Journal(path: path, identity: Self.identity).count() == 0, "a directory only its owner writes is fine")
    }

    /// A root flowd with its journal in a directory another user owns: that user could replace the
    /// journal. Needs root (to give the directory away); a test that is not root skips.
    @Test(.enabled(if: getuid() == 0, "only root can give a directory to another user"))
    func aDirectoryOfAnotherUserIsRefused() throws {
        let directory = makeTemporaryDirectory()
        let path = directory + "/launcher.journal"
        do {
            let journal = try Journal(path: path, identity: Self.identity)
            try journal.append([Self.record(1)])
        }
        let before = Self.contents(path)
        chown(directory, 65534, 65534)
        #expect(throws: JournalError.unsafe(path: path, reason: """
            its directory \(directory) belongs to uid 65534, not to this user (uid 0) or root: that user could \
            replace the journal with inputs the next start replays; keep the journal in a directory of your own \
            (mkdir -m 700 DIR)
            """)) { try Journal(path: path, identity: Self.identity) }
        #expect(Self.contents(path) == before, "the journal is kept as it was")
        chown(directory, 0, 0)
        #expect(try Journal(path: path, identity: Self.identity).records() == [Self.record(1)])
    }

    @Test func aJournalThatIsALinkIsRefused() throws {
        let path = Self.path()
        let real = makeTemporaryDirectory() + "/real.journal"
        do {
            let journal = try Journal(path: real, identity: Self.identity)
            try journal.append([Self.record(1)])
        }
        let before = Self.contents(real)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: real)
        do {
            _ = try Journal(path: path, identity: Self.identity)
            Issue.record("opened a journal through a link")
        } catch {
            guard case .cannotOpen(path, let reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains("it is a symbolic link to \(real), which flowd does not follow"), "\(reason)")
            #expect(reason.contains("give the path it points to"), "\(reason)")
        }
        #expect(Self.contents(real) == before)
        #expect(Journal.isLink(path), "the link is kept")
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

/// The log's bytes read the way docs/journal.md lays them out, written independently of the store:
/// the tests check the format, and damage frames on purpose.
struct LogFile {
    var bytes: [UInt8]
    var schema: UInt32
    var app: String
    var version: String
    var headerBytes: Int
    var frames: [Frame] = []
    /// Where each frame starts, and the end of the last.
    var offsets: [Int] = []

    struct Frame {
        var count: UInt32
        var seq: UInt64
        var sum: UInt64
        var bytes: [UInt8]
    }

    init(_ path: String) throws {
        bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(Array(bytes.prefix(8)) == Array("FLOWDLOG".utf8))
        schema = UInt32(Self.number(bytes, 8, 4))
        let names = Int(Self.number(bytes, 12, 4))
        var reader = JournalBatch.Reader(bytes: Array(bytes[16..<(16 + names)]))
        var texts: [String] = []
        while let length = reader.varint(), let text = reader.bytes(length) { texts.append(String(decoding: text, as: UTF8.self)) }
        try #require(texts.count == 2, "an app and a version: \(texts)")
        (app, version) = (texts[0], texts[1])
        headerBytes = 16 + names + 8
        var offset = headerBytes
        while offset < bytes.count {
            offsets.append(offset)
            let length = Int(Self.number(bytes, offset, 4))
            frames.append(Frame(
                count: UInt32(Self.number(bytes, offset + 4, 4)), seq: Self.number(bytes, offset + 8, 8), sum: Self.number(bytes, offset + 16, 8),
                bytes: Array(bytes[(offset + 24)..<(offset + 24 + length)])))
            offset += 24 + length
        }
        offsets.append(offset)
    }

    /// Writes the header as read and the frames as they are now, each checksum made anew.
    func write(to path: String) throws {
        var out = Array(bytes.prefix(headerBytes))
        for frame in frames {
            let sum = UInt64(bitPattern: JournalBatch.sum(seq: Int64(frame.seq), count: Int64(frame.count), bytes: frame.bytes))
            for (value, size) in [(UInt64(frame.bytes.count), 4), (UInt64(frame.count), 4), (frame.seq, 8), (sum, 8)] {
                for index in 0..<size { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
            }
            out += frame.bytes
        }
        try Data(out).write(to: URL(fileURLWithPath: path))
    }

    static func number(_ bytes: [UInt8], _ offset: Int, _ size: Int) -> UInt64 {
        (0..<size).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }
}

/// Power loss: the log cut short, or ending in zeros, as a crash in the middle of a write leaves it.
@Suite struct JournalPowerLossTests {
    static let identity = JournalTests.identity
    static let batches = 12
    static let perBatch = 5

    /// The records appended by the first `n` batches.
    static func expected(batches n: Int) -> [Journal.Record] {
        (0..<(n * perBatch)).map(JournalTests.record)
    }

    /// A log with `batches` batches, copied while its writer still has it open.
    static func crashedCopy() throws -> (directory: String, log: [UInt8]) {
        let path = JournalTests.path()
        let journal = try Journal(path: path, identity: identity)
        for batch in 0..<batches {
            try journal.append((batch * perBatch..<(batch + 1) * perBatch).map(JournalTests.record))
        }
        let log = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        _ = journal
        return (makeTemporaryDirectory(), log)
    }

    @Test func aLogCutAtAnyByteRestoresWholeBatchesInOrderAndTheFirstWriteCutsTheTornFrame() throws {
        let crash = try Self.crashedCopy()
        let file = crash.directory + "/whole.journal"
        try Data(crash.log).write(to: URL(fileURLWithPath: file))
        let start = try LogFile(file).headerBytes
        var seen: Set<Int> = []
        for cut in start...crash.log.count {
            let path = crash.directory + "/cut.journal"
            try Data(crash.log.prefix(cut)).write(to: URL(fileURLWithPath: path))
            let records: [Journal.Record]
            do {
                let journal = try Journal(path: path, identity: Self.identity)
                records = try journal.records()
                #expect(records.count % Self.perBatch == 0, "whole batches only, cut at \(cut): \(records.count) records")
                #expect(records == Self.expected(batches: records.count / Self.perBatch), "a prefix in order, cut at \(cut)")
                seen.insert(records.count / Self.perBatch)
                guard cut % 97 == 0 || cut == crash.log.count - 1 else { continue }
                try journal.append([JournalTests.record(1_000)])
            }
            // The next write went right after the whole frames, the torn bytes cut away: reopened,
            // the file is whole frames to its end and reads back with the new record.
            let reopened = try Journal(path: path, identity: Self.identity)
            #expect(reopened.tornBytes == 0, "cut at \(cut)")
            #expect(try reopened.records() == records + [JournalTests.record(1_000)], "cut at \(cut)")
            let file = try LogFile(path)
            #expect(file.offsets.last == file.bytes.count)
        }
        #expect(seen == Set(0...Self.batches), "every state from the first batch to the last: \(seen.sorted())")
    }

    @Test func aLogEndingInZerosOrGarbageIsATornWrite() throws {
        let crash = try Self.crashedCopy()
        var generator = SeededGenerator(seed: 3)
        for (index, tail) in [[UInt8](repeating: 0, count: 4_096), (0..<100).map { _ in UInt8.random(in: 0...255, using: &generator) }].enumerated() {
            let path = crash.directory + "/tail\(index).journal"
            try Data(crash.log + tail).write(to: URL(fileURLWithPath: path))
            do {
                let journal = try Journal(path: path, identity: Self.identity)
                #expect(journal.tornBytes == tail.count)
                #expect(try journal.records() == Self.expected(batches: Self.batches))
                #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == crash.log + tail, "opening and reading write nothing")
                try journal.append([JournalTests.record(1_000)])
            }
            let reopened = try Journal(path: path, identity: Self.identity)
            #expect(reopened.tornBytes == 0, "the first write cut the tail")
            #expect(try reopened.records() == Self.expected(batches: Self.batches) + [JournalTests.record(1_000)])
        }
    }
}

/// Flushes run off the writer's thread while it keeps appending.
@Suite struct JournalSyncTests {
    @Test func aFlushOnAnotherThreadWhileTheWriterGoesOnLosesNothing() throws {
        let path = JournalTests.path()
        let journal = try Journal(path: path, identity: JournalTests.identity)
        try journal.append((0..<100).map(JournalTests.record))
        let sync = try #require(journal.syncRequest())
        let done = DispatchSemaphore(value: 0)
        Thread {
            for _ in 0..<20 {
                sync.run()
                usleep(1_000)
            }
            done.signal()
        }.start()
        for batch in 0..<40 { try journal.append((100 + batch * 10..<100 + (batch + 1) * 10).map(JournalTests.record)) }
        done.wait()
        #expect(try journal.records() == (0..<500).map(JournalTests.record))
    }
}
