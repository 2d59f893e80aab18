import FlowJournal
import FlowWire
import FlowdTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Bad state files, from the outside (issue 16; docs/restore.md, "Bad state files"): the real flowd
/// on a journal of another app, version or schema, on a file that is not a journal, on a damaged or
/// cut one, on a path it cannot use, next to another flowd on the same journal, with contradicting
/// options, and with a disk that fills up while it runs. Each test checks the exit code or the fresh
/// start, the message (what was found, the path, what to do) and that the old file is kept byte for
/// byte.
@Suite("bad state files")
struct BadStateTests {
    static let flowd = productsDirectory.appendingPathComponent("flowd").path
    static let deepStack = Journal.Identity(app: "deep-stack", appVersion: "1")
    static let prlimit = Precondition.executable("/usr/bin/prlimit", "needs prlimit (util-linux)")

    // MARK: Another app, version or schema

    @Test func anotherAppsJournalIsMovedAsideAndTheAppStartsFresh() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/app.journal"
        let tutorial = try DaemonProcess(arguments: ["--app", "tutorial", "--state", path], directory: directory)
        tutorial.signal(SIGTERM)
        #expect(tutorial.waitForExit() == 0)
        let before = Snapshot(path)
        #expect(before.database != nil)

        let daemon = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", path], directory: directory)
        let kept = try Self.expectMovedAside(path, before, daemon)
        Self.expectMessage(daemon.logText, [
            "the journal \(path) belongs to app tutorial, not deep-stack", "moved aside to \(kept)", "the app starts fresh",
            "to restore it, run flowd --app tutorial --state \(kept)",
        ])
        try Self.expectFreshStart(daemon)
    }

    /// Another version's journal is an upgrade, not a bad file: kept byte for byte in the one archive
    /// slot (`PATH.previous`), said at info, and the app starts from what it carried (deep-stack's flow
    /// names no place and keeps no memento: its start).
    @Test func anotherVersionsJournalIsKeptInTheArchiveSlotAndTheAppStartsFresh() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/deep-stack.journal"
        do {
            let journal = try Journal(path: path, identity: .init(app: "deep-stack", appVersion: "0"))
            try journal.append([Journal.Record(kind: 1, body: [2] + Array(#"{"didPressButton":{"index":0}}"#.utf8))])
        }
        let before = Snapshot(path)

        let daemon = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", path], directory: directory)
        #expect(daemon.waitForLog("upgraded the app from version 0 to 1"), "\(daemon.logText)")
        Self.expectMessage(daemon.logText, [
            "carried no place (the app's start), 0 of 0 mementos and 0 of 0 saved states",
            "the journal of version 0 is kept at \(path).previous until the next upgrade",
        ])
        #expect(!daemon.logText.contains(" error "), "a planned upgrade is not an error: \(daemon.logText)")
        #expect(Self.refused(path).isEmpty, "nothing moved aside")
        #expect(Snapshot(path + ".previous") == before, "kept byte for byte")
        try Self.expectFreshStart(daemon)
        #expect(try Self.stats(daemon.socketPath).journalArchive == path + ".previous")
    }

    @Test func anotherSchemasJournalIsMovedAsideAndTheAppStartsFresh() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/deep-stack.journal"
        try Self.makeJournal(at: path, presses: 3, end: .stop)
        // A later flowd's log: its header says schema 4 (a little-endian u32 after the magic).
        var bytes = try #require(Self.bytes(path))
        bytes[8] = 4
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let before = Snapshot(path)

        let daemon = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", path], directory: directory)
        let kept = try Self.expectMovedAside(path, before, daemon)
        Self.expectMessage(daemon.logText, [
            "the journal \(path) has schema 4; this flowd reads schema 3", "moved aside to \(kept)",
            "a flowd that reads schema 4 can restore it: run it with --state \(kept)",
        ])
        try Self.expectFreshStart(daemon)
    }

    /// A journal of schema 1 (SQLite, a row per input: the flowd before batches) is restored as it
    /// is, and converted into a log at the daemon's first write after the restore, the SQLite file kept
    /// beside it: an upgrade keeps where the user was.
    @Test func aSchema1JournalOfAnOlderFlowdIsRestoredThenConvertedAtTheFirstWrite() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/deep-stack.journal"
        try Self.makeJournal(at: path, presses: 3, end: .stop)
        try Self.python(Self.toSchema1, path)
        let before = Snapshot(path)
        #expect(before.database.map { Array($0.prefix(15)) } == Array("SQLite format 3".utf8))

        let daemon = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", path], directory: directory)
        #expect(daemon.waitForLog("restored the app from its journal"), "\(daemon.logText)")
        let host = try Host(socket: daemon.socketPath)
        var stats = try Self.stats(daemon.socketPath)
        #expect(stats.restoredInputs == 3 && stats.screens == 4, "where the user was: \(stats)")
        #expect(Snapshot(path) == before, "restoring writes nothing: the file is still schema 1")
        try #require(try host.push() != nil)
        #expect(daemon.waitForLog("converted the SQLite journal of an older flowd into a log"), "\(daemon.logText)")
        daemon.signal(SIGTERM)
        while let frame = try host.client.receive() { try host.client.ackAll([frame]) }
        #expect(daemon.waitForExit() == 0, "\(daemon.logText)")
        #expect(Self.refused(path).isEmpty, "not refused")
        let kept = Self.besides(path, ".sqlite-").filter { !$0.hasSuffix("-wal") }
        try #require(kept.count == 1, "the SQLite journal is kept beside the log: \(kept)")
        #expect(Snapshot(kept[0]) == before, "as it was")
        #expect(Self.bytes(path).map { Array($0.prefix(8)) } == Array("FLOWDLOG".utf8), "the journal is a log now")

        do {
            let journal = try Journal(path: path, identity: Self.deepStack)
            // Inputs only, not the time the new one was received (kind 67).
            #expect(try journal.records().count { $0.kind < 64 } == 4, "the three old inputs and the new one")
        }
        let again = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", path], directory: directory)
        #expect(again.waitForLog("restored the app from its journal"), "\(again.logText)")
        stats = try Self.stats(again.socketPath)
        #expect(stats.restoredInputs == 4 && stats.screens == 5, "\(stats)")
    }

    /// Python that rewrites a log (`sys.argv[1]`, docs/journal.md) as an SQLite journal of schema 1: a
    /// row per input with its own checksum, as the flowd before batches wrote it.
    static let toSchema1 = """
        import os, sqlite3, struct, sys
        M = (1 << 64) - 1
        def fnv(words, body):
            h = 0xcbf29ce484222325
            for w in words:
                for i in range(8):
                    h = ((h ^ ((w >> (8 * i)) & 0xff)) * 0x100000001b3) & M
            for b in body:
                h = ((h ^ b) * 0x100000001b3) & M
            return h - (1 << 64) if h >= 1 << 63 else h
        def varint(data, at):
            value, shift = 0, 0
            while True:
                b = data[at]; at += 1
                value |= (b & 0x7f) << shift; shift += 7
                if b < 0x80: return value, at
        signed = lambda v: v - (1 << 64) if v >= 1 << 63 else v
        data = open(sys.argv[1], 'rb').read()
        assert data[:8] == b'FLOWDLOG' and struct.unpack_from('<I', data, 8)[0] == 3
        names = struct.unpack_from('<I', data, 12)[0]
        at = 16
        identity = []
        for _ in range(2):
            length, at = varint(data, at); identity.append(data[at:at + length].decode()); at += length
        at = 16 + names + 8
        rows = []
        while at < len(data):
            length, count, seq, _ = struct.unpack_from('<IIQQ', data, at)
            blob = data[at + 24:at + 24 + length]; at += 24 + length
            p = 0
            for _ in range(count):
                kind, p = varint(blob, p); key, p = varint(blob, p)
                tag = blob[p]; p += 1
                check = None
                if tag == 1:
                    check, p = varint(blob, p); check = signed(check)
                length, p = varint(blob, p)
                rows.append((signed(kind), bytes(blob[p:p + length]), signed(key), check)); p += length
        os.remove(sys.argv[1])
        c = sqlite3.connect(sys.argv[1])
        c.executescript(f"PRAGMA page_size=1024; PRAGMA application_id={0x666C7764}; PRAGMA user_version=1; PRAGMA journal_mode=WAL;")
        c.execute('CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)')
        c.execute("INSERT INTO meta VALUES ('app', ?), ('app_version', ?)", identity)
        c.execute('CREATE TABLE inputs(seq INTEGER PRIMARY KEY, kind INTEGER NOT NULL, body BLOB NOT NULL, key INTEGER NOT NULL, "check" INTEGER, sum INTEGER NOT NULL)')
        for seq, (kind, body, key, check) in enumerate(rows, 1):
            words = [w & M for w in (seq, kind, key, check or 0)]
            c.execute("INSERT INTO inputs VALUES (?, ?, ?, ?, ?, ?)", (seq, kind, body, key, check, fnv(words, body)))
        c.commit()
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        c.close()
        """

    // MARK: Not a journal

    @Test func aFileThatIsNotAJournalIsMovedAsideAndTheAppStartsFresh() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/deep-stack.journal"
        var generator = SeededGenerator(seed: 16)
        let noise = (0..<10_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(noise)))
        let before = Snapshot(path)

        let daemon = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", path], directory: directory)
        let kept = try Self.expectMovedAside(path, before, daemon)
        Self.expectMessage(daemon.logText, [
            "\(path) is not a flowd journal (neither a flowd journal nor an SQLite database)", "moved aside to \(kept)",
            "flowd cannot restore it; if it belongs to another program, move it back and give flowd another --state",
        ])
        try Self.expectFreshStart(daemon)
    }

    @Test func anotherProgramsDatabaseIsMovedAsideAndTheAppStartsFresh() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/deep-stack.journal"
        try Self.python(
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE notes(text)'); c.execute(\"INSERT INTO notes VALUES ('keep me')\"); c.commit(); c.close()",
            path)
        let before = Snapshot(path)

        let daemon = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", path], directory: directory)
        let kept = try Self.expectMovedAside(path, before, daemon)
        Self.expectMessage(daemon.logText, [
            "\(path) is not a flowd journal (an SQLite database of another program (application_id 0))", "moved aside to \(kept)",
            "if it belongs to another program, move it back and give flowd another --state",
        ])
        try Self.expectFreshStart(daemon)
    }

    // MARK: Damaged

    /// Bytes in the middle of the log overwritten, with whole batches after them: damage, noticed when
    /// the journal opens, and the journal is moved aside as it was found.
    @Test func aJournalWithBytesOverwrittenInTheMiddleIsMovedAsideAndTheAppStartsFresh() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/deep-stack.journal"
        try Self.makeJournal(at: path, presses: 300, end: .kill)
        var log = try #require(Self.bytes(path))
        var generator = SeededGenerator(seed: 7)
        for index in (log.count / 2)..<(log.count / 2 + 64) { log[index] = UInt8.random(in: 0...255, using: &generator) }
        try Data(log).write(to: URL(fileURLWithPath: path))
        let before = Snapshot(path)

        let daemon = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", path], directory: directory)
        let kept = try Self.expectMovedAside(path, before, daemon)
        Self.expectMessage(daemon.logText, [
            "the journal \(path) is damaged", "later batches follow it", "moved aside to \(kept)", "the app starts fresh",
            "flowd cannot restore it; it is kept for inspection and may be deleted",
        ])
        try Self.expectFreshStart(daemon)
    }

    /// A log cut short — at a frame boundary or inside a frame — is what a crash or power cut while
    /// appending leaves: the journal opens at an earlier consistent state (whole batches), is not
    /// refused, and the first write cuts the torn frame away.
    @Test(arguments: [false, true])
    func aLogCutShortRestoresAnEarlierStateAndTheFirstWriteCutsTheTornFrame(insideAFrame: Bool) throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/deep-stack.journal"
        let presses = 20
        try Self.makeJournal(at: path, presses: presses, end: .kill)
        let log = try #require(Self.bytes(path))
        let offsets = try Self.frameOffsets(log)
        try #require(offsets.count == presses + 1, "a frame per press: \(offsets.count - 1)")
        // Inside a frame: torn 3 bytes before its end, the file grown by 4 KiB of zeros as a power cut
        // can leave it (so that a new frame written without cutting them would leave zeros after it).
        let cut = insideAFrame ? offsets[presses / 2 + 1] - 3 : offsets[presses / 2]
        try Data(log.prefix(cut) + (insideAFrame ? [UInt8](repeating: 0, count: 4_096) : [])).write(to: URL(fileURLWithPath: path))

        let daemon = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", path], directory: directory)
        #expect(daemon.waitForLog("restored the app from its journal"), "\(daemon.logText)")
        let stats = try Self.stats(daemon.socketPath)
        #expect(stats.restoredInputs == UInt64(presses / 2), "an earlier state: \(stats.restoredInputs) of \(presses) inputs")
        #expect(daemon.logText.contains("inputs=\(stats.restoredInputs)"))
        #expect(stats.screens == stats.restoredInputs + 1, "one item per press, and the first")
        #expect(Self.refused(path).isEmpty, "not refused")
        #expect(daemon.logText.contains("the journal ends in a torn write") == insideAFrame, "\(daemon.logText)")
        #expect(!daemon.logText.contains("error"), "\(daemon.logText)")

        let host = try Host(socket: daemon.socketPath)
        try #require(try host.push() != nil)
        daemon.signal(SIGKILL)
        _ = daemon.waitForExit()
        let after = try #require(Self.bytes(path))
        let frames = try Self.frameOffsets(after)
        #expect(frames.count == presses / 2 + 2, "the new frame right after the whole ones")
        // Killed, the daemon leaves the zeros it allocated ahead of its frames (docs/journal.md).
        #expect(onlyZeros(after, from: frames.last ?? 0), "the torn frame cut away: \(after.count) bytes, frames end at \(frames.last ?? -1)")
        let again = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", path], directory: directory)
        #expect(try Self.stats(again.socketPath).restoredInputs == UInt64(presses / 2 + 1))
    }

    // MARK: A path that cannot be used

    @Test func aDirectoryInTheWayIsExit74() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/deep-stack.journal"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: path + "/note", contents: Data("mine".utf8)))

        let run = try Self.exit(["--socket", directory + "/flowd.sock", "--app", "deep-stack", "--state", path])
        #expect(run.status == 74, "\(run.stderr)")
        Self.expectMessage(run.stderr, ["cannot open the journal \(path): it is a directory", "give another --state, or --no-state to run without one"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: path) == ["note"], "the directory is left as it was")
        #expect(Self.bytes(path + "/note") == Array("mine".utf8))
        #expect(!FileManager.default.fileExists(atPath: directory + "/flowd.sock"), "no socket left behind")
    }

    /// A state directory others can write: they could replace the journal with inputs the next start
    /// replays, so flowd refuses it, with its own exit code, before it touches anything (docs/journal.md).
    @Test func aStateDirectoryOthersCanWriteIsExit77() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = directory + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        let path = state + "/deep-stack.journal"
        try Self.makeJournal(at: path, presses: 3, end: .stop)
        let before = Snapshot(path)
        let files = try FileManager.default.contentsOfDirectory(atPath: state).sorted()
        chmod(state, 0o777)

        let run = try Self.exit(["--socket", directory + "/flowd.sock", "--app", "deep-stack", "--state", path])
        #expect(run.status == 77, "\(run.stderr)")
        Self.expectMessage(run.stderr, [
            "refusing the journal \(path): its directory \(state) has mode 777 and is writable by group or others",
            "run `chmod go-w \(state)`", "or give flowd another --state",
        ])
        #expect(Snapshot(path) == before, "the journal is kept as it was")
        #expect(try FileManager.default.contentsOfDirectory(atPath: state).sorted() == files, "nothing created or moved aside")
    }

    @Test func aPathUnderARegularFileIsExit74() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/state"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("mine".utf8)))
        let path = file + "/deep-stack.journal"

        let run = try Self.exit(["--socket", directory + "/flowd.sock", "--app", "deep-stack", "--state", path])
        #expect(run.status == 74, "\(run.stderr)")
        Self.expectMessage(run.stderr, ["cannot open the journal \(path): \(file) is not a directory", "give another --state"])
        #expect(Self.bytes(file) == Array("mine".utf8))
    }

    @Test(.needs(Denied.precondition))
    func aDirectoryWeCannotWriteIsExit74() throws {
        let denied = try Denied()
        defer { denied.remove() }
        let state = denied.base + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        chmod(state, 0o555)
        let path = state + "/deep-stack.journal"

        let run = try denied.run(["--app", "deep-stack", "--state", path])
        #expect(run.status == 74, "\(run.stderr)")
        Self.expectMessage(run.stderr, [
            "cannot open the journal \(path): cannot create the lock file \(path).lock next to it: Permission denied",
            "give another --state, or --no-state to run without one",
        ])
        #expect(try FileManager.default.contentsOfDirectory(atPath: state).isEmpty)
    }

    @Test(.needs(Denied.precondition))
    func aJournalWeCannotReadIsExit74() throws {
        let denied = try Denied()
        defer { denied.remove() }
        let path = try denied.journal()
        let before = Snapshot(path)
        chmod(path, 0o000)

        let run = try denied.run(["--app", "deep-stack", "--state", path])
        chmod(path, 0o644)
        #expect(run.status == 74, "\(run.stderr)")
        Self.expectMessage(run.stderr, ["cannot open the journal \(path)", "Permission denied", "give another --state, or --no-state to run without one"])
        #expect(Snapshot(path) == before)
        #expect(Self.refused(path).isEmpty, "not moved aside")
    }

    @Test(.needs(Denied.precondition))
    func aJournalWeCannotWriteIsExit74() throws {
        let denied = try Denied()
        defer { denied.remove() }
        let path = try denied.journal()
        let before = Snapshot(path)
        chmod(path, 0o444)

        let run = try denied.run(["--app", "deep-stack", "--state", path])
        chmod(path, 0o644)
        #expect(run.status == 74, "\(run.stderr)")
        Self.expectMessage(run.stderr, ["cannot open the journal \(path): it is read-only", "give another --state, or --no-state to run without one"])
        #expect(Snapshot(path) == before)
    }

    /// Another app's journal in a directory flowd cannot write: it cannot be moved aside for a fresh
    /// start, so flowd does not start (rather than write over it).
    @Test(.needs(Denied.precondition))
    func aJournalThatCannotBeMovedAsideIsExit74() throws {
        let denied = try Denied()
        defer { denied.remove() }
        let state = denied.base + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        let path = state + "/deep-stack.journal"
        do {
            let journal = try Journal(path: path, identity: .init(app: "tutorial", appVersion: "1"))
            try journal.append([Journal.Record(kind: 1, body: [2])])
        }
        // The files SQLite and flowd would create next to it exist already, theirs to write.
        for suffix in [".lock", "-wal", "-shm"] where !FileManager.default.fileExists(atPath: path + suffix) {
            #expect(FileManager.default.createFile(atPath: path + suffix, contents: nil))
        }
        for suffix in ["", ".lock", "-wal", "-shm"] { denied.giveToFlowd(path + suffix) }
        chmod(state, 0o555)
        let before = Snapshot(path)

        let run = try denied.run(["--app", "deep-stack", "--state", path])
        #expect(run.status == 74, "\(run.stderr)")
        Self.expectMessage(run.stderr, [
            "cannot open the journal \(path): the journal \(path) belongs to app tutorial, not deep-stack",
            "it cannot be moved aside to start a fresh one: cannot rename it to \(path).refused-", "Permission denied",
            "give another --state, or --no-state to run without one",
        ])
        #expect(Snapshot(path) == before)
        #expect(try Journal(path: path, identity: .init(app: "tutorial", appVersion: "1")).count() == 1)
    }

    // MARK: Two daemons, and contradicting options

    @Test func twoFlowdsOfOneAppOnTwoSocketsEachKeepTheirOwnDefaultJournal() throws {
        // No --state: each journals by default under the one XDG_STATE_HOME, in a file of its socket's.
        let state = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let first = try DaemonProcess(arguments: ["--app", "deep-stack"], environment: ["XDG_STATE_HOME": state])
        let second = try DaemonProcess(arguments: ["--app", "deep-stack"], environment: ["XDG_STATE_HOME": state])
        let one = try Host(socket: first.socketPath), two = try Host(socket: second.socketPath)
        #expect(try one.push() != nil)
        #expect(try two.push() != nil)
        let journals = try FileManager.default.contentsOfDirectory(atPath: state + "/flowd").filter { $0.hasSuffix(".journal") }
        #expect(journals.count == 2 && journals.allSatisfy { $0.hasPrefix("deep-stack@flowd.sock-") }, "\(journals)")
    }

    @Test func aSecondFlowdOnTheSameJournalIsExit75AndTheFirstKeepsServing() throws {
        let directory = makeTemporaryDirectory(), other = makeTemporaryDirectory()
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: other)
        }
        let path = directory + "/deep-stack.journal"
        let first = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", path], directory: directory)
        let host = try Host(socket: first.socketPath)
        #expect(try host.push() != nil)

        let second = try Self.exit(["--socket", other + "/flowd.sock", "--app", "deep-stack", "--state", path])
        #expect(second.status == 75, "\(second.stderr)")
        Self.expectMessage(second.stderr, [
            "the journal \(path) is in use by process \(first.process.processIdentifier)",
            "stop the other flowd or give this one another --state",
        ])
        #expect(!FileManager.default.fileExists(atPath: other + "/flowd.sock"), "no socket left behind")

        #expect(try host.push() != nil, "the first flowd keeps serving")
        try host.client.ping()
        first.signal(SIGKILL)
        _ = first.waitForExit()
        let again = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", path], directory: directory)
        #expect(try Self.stats(again.socketPath).restoredInputs == 2, "the first flowd's journal: \(again.logText)")
    }

    @Test(arguments: [
        (["--state", "STATE", "--no-state"], "--state and --no-state contradict each other; give one"),
        (["--state", ""], "--state must be a file path (the journal), got ''"),
        (["--state", "STATE/"], "--state must be a file path (the journal), got 'STATE/'"),
    ])
    func contradictingOrEmptyStateOptionsAreExit64(arguments: [String], message: String) throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/deep-stack.journal"
        let run = try Self.exit(["--socket", directory + "/flowd.sock", "--app", "deep-stack"] + arguments.map { $0.replacingOccurrences(of: "STATE", with: path) })
        #expect(run.status == 64, "\(run.stderr)")
        Self.expectMessage(run.stderr, [message.replacingOccurrences(of: "STATE", with: path), "flowd serve --help"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty, "nothing created")
    }

    @Test func theHelpListsTheExitCodes() throws {
        let run = try ProductRun.run("flowd", ["serve", "--help"])
        #expect(run.status == 0)
        let help = run.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
        for code in [
            "0 clean stop", "64 bad arguments", "69 another flowd already serves the socket", "73 the socket cannot be created",
            "74 the state file cannot be used", "75 another flowd holds the state file",
            "77 another user could change the state file", "70 internal error", "78 what the service manager passed",
        ] {
            #expect(help.contains(code), "\(code): \(help)")
        }
        #expect(help.contains("docs/restore.md"))
    }

    // MARK: A disk that fills up

    /// The file size limit (`ulimit -f`) stands in for a full disk: writes beyond it fail (EFBIG) as
    /// they would with ENOSPC. flowd keeps serving with the inputs in memory, says so once, the file
    /// keeps its earlier commits, and a restart after a SIGKILL restores them.
    @Test func aDiskThatFillsUpWhileRunningKeepsFlowdServingAndTheJournalAtItsLastCommit() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/deep-stack.journal"
        let (daemon, host, pushed) = try Self.fillUp(directory: directory, path: path)

        let stats = try Self.stats(directory + "/flowd.sock")
        #expect(stats.journalPending > 0)
        #expect(Int(stats.journaledInputs + stats.journalPending) == pushed, "every input is journaled or waiting")
        let committed = Int(stats.journaledInputs)
        #expect(committed > 0)
        let failures = daemon.logText.split(separator: "\n").filter { $0.contains("journal write failed") }
        #expect(failures.count == 1, "said once: \(failures)")
        Self.expectMessage(daemon.logText, [
            "journal write failed: the journal \(path) reached the file size limit of this process (ulimit -f)",
            "the inputs stay in memory", "raise flowd's file size limit (ulimit -f)",
        ])

        // The file holds the inputs committed before the limit, in order (read from a copy: flowd holds the lock).
        let copy = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.copyItem(atPath: path, toPath: copy + "/copy.journal")
        let copied = try Journal(path: copy + "/copy.journal", identity: Self.deepStack)
        #expect(copied.tornBytes == 0, "a failed write is cut back to the last whole frame")
        // Inputs, with the times they were received (kind 67) among them.
        let records = try copied.records().filter { $0.kind != 67 }
        #expect(records.count == committed)
        #expect(records.allSatisfy { $0.kind == 1 }, "outputs: the presses")

        daemon.signal(SIGKILL)
        _ = daemon.waitForExit()
        _ = host
        let again = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", path], directory: directory)
        #expect(again.waitForLog("restored the app from its journal"))
        let restored = try Self.stats(again.socketPath)
        #expect(Int(restored.restoredInputs) == committed, "the state at the last commit")
        #expect(Int(restored.screens) == committed + 1)
    }

    /// No room when flowd starts: a journal that exists is read (a restore needs no room) and the
    /// inputs wait in memory; a journal that does not exist yet cannot be made, and flowd does not start.
    @Test func aDiskAlreadyFullAtStartRestoresTheJournalOrIsExit74WithoutOne() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/deep-stack.journal"
        try Self.makeJournal(at: path, presses: 3, end: .stop)
        let before = Snapshot(path)

        let daemon = try SpawnedProcess(
            executable: "/bin/sh",
            arguments: ["-c", "ulimit -S -f 0 && exec \"$0\" \"$@\"", Self.flowd, "--socket", directory + "/flowd.sock", "--app", "deep-stack", "--state", path],
            environment: Self.environment)
        try #require(daemon.waitForLog("listening on"), "\(daemon.logText)")
        #expect(try Self.stats(directory + "/flowd.sock").restoredInputs == 3, "restored without room")
        let host = try Host(socket: directory + "/flowd.sock")
        try #require(try host.pushWithoutPing() != nil, "flowd answers")
        #expect(daemon.waitForLog("journal write failed: the journal \(path) reached the file size limit"), "\(daemon.logText)")
        #expect(Snapshot(path) == before, "the journal keeps its three inputs")
        daemon.signal(SIGKILL)
        _ = daemon.waitForExit()

        let fresh = directory + "/fresh.journal"
        let run = try Self.exit(executable: "/bin/sh", [
            "-c", "ulimit -S -f 0 && exec \"$0\" \"$@\"", Self.flowd, "--socket", directory + "/flowd.sock", "--app", "deep-stack", "--state", fresh,
        ])
        #expect(run.status == 74, "\(run.stderr)")
        Self.expectMessage(run.stderr, [
            "cannot open the journal \(fresh): it is at the file size limit of this process (ulimit -f); raise the limit",
            "give another --state, or --no-state to run without one",
        ])
        #expect(!FileManager.default.fileExists(atPath: fresh) && !FileManager.default.fileExists(atPath: fresh + ".new"), "nothing half made")
    }

    @Test(.needs(BadStateTests.prlimit))
    func aDiskWithRoomAgainGetsTheInputsKeptInMemory() throws {
        try Self.prlimit.require()
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/deep-stack.journal"
        let (daemon, host, pushed) = try Self.fillUp(directory: directory, path: path)
        // A Ping waits: the inputs before it are not durable yet (docs/protocol.md §10).
        var ping = Flowd_V1_Ping()
        ping.nonce = 77
        let pingSeq = try host.client.send(.ping(ping))
        #expect((try? host.client.receive(timeoutMilliseconds: 300)) == nil, "no Pong while the journal cannot write")

        // Room again (the limit lifted); nothing else happens: the retry comes by itself.
        let lift = try ProductRun.run(executable: URL(fileURLWithPath: "/usr/bin/prlimit"), ["--pid", "\(daemon.pid)", "--fsize=unlimited:"])
        try #require(lift.status == 0, "\(lift.stderr)")
        #expect(daemon.waitForLog("journal writes again"), "\(daemon.logText)")
        let pong = try #require(try host.client.receive(), "the Pong once the inputs are journaled")
        #expect(pong.replyTo == pingSeq)
        if case .pong(let answer) = pong.body { #expect(answer.nonce == 77) } else { Issue.record("expected the Pong, got \(pong)") }
        let stats = try Self.stats(directory + "/flowd.sock")
        #expect(stats.journalPending == 0)
        #expect(Int(stats.journaledInputs) == pushed)

        daemon.signal(SIGKILL)
        _ = daemon.waitForExit()
        _ = host
        let again = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", path], directory: directory)
        #expect(Int(try Self.stats(again.socketPath).restoredInputs) == pushed, "nothing was lost")
    }

    @Test func aStopWhileTheDiskIsFullSaysWhatWasNotJournaled() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/deep-stack.journal"
        let (daemon, host, pushed) = try Self.fillUp(directory: directory, path: path)
        let committed = Int(try Self.stats(directory + "/flowd.sock").journaledInputs)

        daemon.signal(SIGTERM)
        while let frame = try host.client.receive() { try host.client.ackAll([frame]) }
        #expect(daemon.waitForExit() == 0)
        #expect(daemon.waitForLogEnd())
        Self.expectMessage(daemon.logText, [
            "\(pushed - committed) inputs could not be journaled before the stop: the journal \(path) reached the file size limit",
            "the next start restores the state before them",
        ])
        let again = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", path], directory: directory)
        #expect(Int(try Self.stats(again.socketPath).restoredInputs) == committed)
    }
}

// MARK: Helpers

extension BadStateTests {
    /// A journal's files as found: the journal and, for an older flowd's SQLite journal, its
    /// write-ahead log (an empty log counts as none: SQLite creates one when it opens a journal).
    struct Snapshot: Equatable, CustomStringConvertible {
        var database: [UInt8]?
        var wal: [UInt8]?

        init(_ path: String) {
            database = BadStateTests.bytes(path)
            wal = BadStateTests.bytes(path + "-wal").flatMap { $0.isEmpty ? nil : $0 }
        }

        var description: String { "database \(database?.count ?? -1) bytes, log \(wal?.count ?? 0) bytes" }
    }

    /// A raw screen host for deep-stack: each press on the top item pushes the next.
    final class Host {
        let client: RawClient
        private(set) var top: UInt64

        init(socket: String) throws {
            client = try RawClient(path: socket)
            try client.handshake(name: "bad-state", provides: ["item"])
            top = try #require(try client.settle().compactMap(\.place).last).screenID
        }

        /// Presses Push and reads until the new item's `Place` and the old top's `PlacementChanged`
        /// (a push sends both), without a Ping (while the journal's writes fail, a Pong waits for
        /// them: docs/protocol.md §10), and acknowledges them.
        func pushWithoutPing() throws -> Flowd_V1_Place? {
            let covered = top
            try client.press(0, on: top)
            var frames: [Flowd_V1_Envelope] = []
            var place: Flowd_V1_Place?
            var changed = false
            while place == nil || !changed, let frame = try client.receive() {
                frames.append(frame)
                place = place ?? frame.place
                changed = changed || frame.placementChanged?.screenID == covered
            }
            try client.ackAll(frames)
            if let place { top = place.screenID }
            return place
        }

        /// Presses Push on the top item and waits for its answer (one loop iteration: one commit).
        func push() throws -> Flowd_V1_Place? {
            try client.press(0, on: top)
            let place = try client.settle().compactMap(\.place).last
            if let place { top = place.screenID }
            return place
        }
    }

    /// How a flowd that should not start ended: its exit status (nil: still running after 30 s, then
    /// killed) and what it wrote to stderr.
    struct Exit {
        var status: Int32?
        var stderr: String
    }

    /// The environment of a flowd started by a test: no service manager.
    static var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES", "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM"] {
            environment[name] = nil
        }
        return environment
    }

    /// Runs flowd (or `executable`, which runs it) with `arguments` until it exits.
    static func exit(executable: String = flowd, _ arguments: [String]) throws -> Exit {
        let process = try SpawnedProcess(executable: executable, arguments: arguments, environment: environment)
        let status = process.waitForExit(timeoutSeconds: 30)
        _ = process.waitForLogEnd(timeoutSeconds: 5)
        return Exit(status: status, stderr: process.logText)
    }

    static func bytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    /// The journals moved aside next to `path` (`PATH.refused-…`, without their -wal and -shm).
    static func refused(_ path: String) -> [String] {
        let directory = (path as NSString).deletingLastPathComponent
        let prefix = (path as NSString).lastPathComponent + ".refused-"
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasPrefix(prefix) && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
            .sorted()
            .map { directory + "/" + $0 }
    }

    /// The journal at `path` was moved aside whole, as it was found: one `PATH.refused-…` holding
    /// `before`. Returns its path. (A journal refused when it opens is moved before flowd listens; one
    /// found damaged by the replay, after.)
    static func expectMovedAside(_ path: String, _ before: Snapshot, _ daemon: DaemonProcess, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        #expect(daemon.waitForLog("and the app starts fresh"), sourceLocation: sourceLocation)
        let kept = refused(path)
        try #require(kept.count == 1, "one journal moved aside: \(kept)\n\(daemon.logText)", sourceLocation: sourceLocation)
        #expect(Snapshot(kept[0]) == before, "moved aside byte for byte", sourceLocation: sourceLocation)
        return kept[0]
    }

    /// Every one of `parts` is in `text`.
    static func expectMessage(_ text: String, _ parts: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for part in parts {
            #expect(text.contains(part), "\"\(part)\" in:\n\(text)", sourceLocation: sourceLocation)
        }
    }

    /// The daemon started deep-stack from the beginning: nothing restored, the first item placed.
    static func expectFreshStart(_ daemon: DaemonProcess, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let host = try Host(socket: daemon.socketPath)
        _ = host
        let stats = try Self.stats(daemon.socketPath)
        #expect(stats.restoredInputs == 0 && stats.screens == 1, "a fresh start: \(stats)", sourceLocation: sourceLocation)
    }

    /// The daemon's counters, asked by a debug client.
    static func stats(_ socket: String) throws -> Flowd_V1_Stats {
        let debug = try RawClient(path: socket)
        try debug.handshake(role: .debug, name: "bad-state")
        return try debug.stats()
    }

    enum End { case stop, kill }

    /// Runs deep-stack on the journal at `path` and pushes `presses` items, each in a loop iteration of its
    /// own (one commit, one frame); then stops it (SIGTERM) or SIGKILLs it.
    static func makeJournal(at path: String, presses: Int, end: End) throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", path], directory: directory)
        let host = try Host(socket: daemon.socketPath)
        for _ in 0..<presses { try #require(try host.push() != nil) }
        switch end {
        case .stop:
            daemon.signal(SIGTERM)
            while let frame = try host.client.receive() { try host.client.ackAll([frame]) }
            #expect(daemon.waitForExit() == 0, "\(daemon.logText)")
        case .kill:
            daemon.signal(SIGKILL)
            _ = daemon.waitForExit()
        }
    }

    /// Where each frame of the log `bytes` starts, and where the last whole one ends.
    static func frameOffsets(_ bytes: [UInt8]) throws -> [Int] {
        try #require(logFrameOffsets(bytes))
    }

    /// The files next to `path` whose names continue it with `infix` (`.sqlite-`, `.refused-`).
    static func besides(_ path: String, _ infix: String) -> [String] {
        let directory = (path as NSString).deletingLastPathComponent
        let prefix = (path as NSString).lastPathComponent + infix
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix(prefix) }.sorted().map { directory + "/" + $0 }
    }

    /// Runs Python code with `arguments` in `sys.argv[1...]`.
    static func python(_ code: String, _ arguments: String...) throws {
        let run = try ProductRun.run(executable: URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", code] + arguments)
        try #require(run.status == 0, "\(run.stderr)")
    }

    /// flowd on deep-stack with a file size limit of 4 KiB (`ulimit -S -f`, the soft limit only so that
    /// it can be lifted), pushed until a journal write fails, then three more pushes answered.
    /// Returns the daemon, its host and the pushes (inputs) so far.
    static func fillUp(directory: String, path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> (SpawnedProcess, Host, Int) {
        // POSIX `ulimit -f` counts 512-byte blocks. SpawnedProcess gives flowd default signal dispositions:
        // SIGXFSZ would kill it unless flowd ignores it.
        let daemon = try SpawnedProcess(
            executable: "/bin/sh",
            arguments: ["-c", "ulimit -S -f 8 && exec \"$0\" \"$@\"", flowd, "--socket", directory + "/flowd.sock", "--app", "deep-stack", "--state", path],
            environment: Self.environment)
        try #require(daemon.waitForLog("listening on"), "\(daemon.logText)", sourceLocation: sourceLocation)
        let host = try Host(socket: directory + "/flowd.sock")
        var pushed = 0
        while pushed < 200, !daemon.logText.contains("journal write failed") {
            try #require(try host.pushWithoutPing() != nil, "flowd answers every push: \(daemon.logText)", sourceLocation: sourceLocation)
            pushed += 1
        }
        try #require(daemon.waitForLog("journal write failed", timeoutSeconds: 5), "the journal outgrew the limit: \(daemon.logText)", sourceLocation: sourceLocation)
        for _ in 0..<3 {
            try #require(try host.pushWithoutPing() != nil, "flowd keeps answering outputs", sourceLocation: sourceLocation)
            pushed += 1
        }
        return (daemon, host, pushed)
    }
}

/// Running flowd where permissions deny it a file: as this user, or — root reads and writes whatever
/// the permissions say — as nobody (uid 65534, through util-linux's setpriv) when the tests run as root.
/// `base` is a directory others can enter; the socket's directory is flowd's user's own.
struct Denied {
    static let setpriv = "/usr/bin/setpriv"
    /// Permissions bite: the test is not root, or it runs flowd as nobody with setpriv.
    static let precondition = Precondition(getuid() != 0 || FileManager.default.isExecutableFile(atPath: setpriv),
                                           "running as root without \(setpriv) (util-linux): permissions do not bite")
    static let nobody: UInt32 = 65534

    let base: String
    let socketDirectory: String

    /// Fails (on CI, where a test that needs it runs anyway) when permissions would not bite.
    init() throws {
        try Self.precondition.require()
        base = makeTemporaryDirectory()
        chmod(base, 0o755)
        socketDirectory = base + "/socket"
        try FileManager.default.createDirectory(atPath: socketDirectory, withIntermediateDirectories: false)
        chmod(socketDirectory, 0o700)
        if getuid() == 0 { chown(socketDirectory, Self.nobody, Self.nobody) }
    }

    /// A deep-stack journal with three inputs, in a directory flowd's user may write (so the lock file
    /// and the log can be created next to it), owned by the test.
    func journal() throws -> String {
        let state = base + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        let path = state + "/deep-stack.journal"
        try BadStateTests.makeJournal(at: path, presses: 3, end: .stop)
        // What the stop leaves besides the journal: its lock file, an empty log and the log's index.
        for suffix in [".lock", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        if getuid() == 0 { chown(state, Self.nobody, Self.nobody) }
        return path
    }

    /// Makes `path` flowd's user's own (it already is, unless the test is root).
    func giveToFlowd(_ path: String) {
        if getuid() == 0 { chown(path, Self.nobody, Self.nobody) }
    }

    /// Runs flowd with `arguments` on a socket in `socketDirectory`, as nobody when the test is root.
    func run(_ arguments: [String]) throws -> BadStateTests.Exit {
        let arguments = ["--socket", socketDirectory + "/flowd.sock"] + arguments
        guard getuid() == 0 else { return try BadStateTests.exit(arguments) }
        return try BadStateTests.exit(
            executable: Self.setpriv, ["--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", BadStateTests.flowd] + arguments)
    }
}

extension Denied {
    /// Removes the directories (as root, or after giving the test its rights back).
    func remove() {
        chmod(base + "/state", 0o755)
        try? FileManager.default.removeItem(atPath: base)
    }
}
