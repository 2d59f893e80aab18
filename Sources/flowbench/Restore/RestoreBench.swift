import CBenchRelay
import FlowControl
import FlowWire
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `restore`: how long flowd takes to come back from its journal (docs/restore.md). For each size a
/// journal of that many inputs is written by the daemon's own core (`JournalWalk`); then, several
/// times, the release flowd is started on a fresh copy of it, with a screen host and a debug client
/// connecting from the moment of the launch (as hosts queued in the socket's backlog while systemd
/// restarts flowd), and the start is timed to the restored tree (`GetTree`) and to the host's first
/// re-placed screen (`Place`).
enum RestoreBench {
    /// One start of flowd on a copy of a journal.
    struct Start {
        /// Seconds from the launch to the answer of a `GetTree` sent as soon as the socket took it.
        var tree: Double
        /// Seconds from the launch to a waiting host's first `Place`.
        var firstPlace: Double
        /// The daemon's CPU seconds (all threads) once both had come, the process's start included.
        var cpu: Double
        /// The daemon's own time for the replay, from its log ("restored the app from its journal"), in ms.
        var replayMillis: Double?
        /// The daemon's resident memory once restored, in bytes.
        var resident: UInt64
    }

    /// Starts per size: `runs`, but at most 3 from 10^6 inputs on (a start takes seconds there).
    static func runs(_ runs: Int, size: Int) -> Int { size >= 1_000_000 ? min(runs, 3) : runs }

    /// One row per size, after a row for a start without a journal (the fixed cost of a start). The
    /// journals are written in `journals` and kept there for the next run (nil: a scratch directory).
    /// `launcherSizes` add rows of the demo launcher's history (`LauncherHistory`), compacted as flowd
    /// compacts it.
    static func rows(flowd: String, sizes: [Int], launcherSizes: [Int] = [], runs: Int, journals: String? = nil) throws -> [TableRow] {
        var rows: [TableRow] = []
        var fixedCPU = 0.0
        let histories = ([0] + sizes).map { (JournalWalk.appName, $0) } + launcherSizes.map { (LauncherHistory.app, $0) }
        for (app, size) in histories {
            let directory = try OS.makeScratchDirectory()
            defer { OS.removeDirectory(directory) }
            let original = (journals ?? directory) + "/\(app)-\(size).journal"
            var walk: JournalWalk?
            if size > 0 {
                Report.progress("restore, a journal of \(Format.count(UInt64(size))) inputs of \(app) in \(original)")
                walk = app == LauncherHistory.app ? try LauncherHistory.journal(inputs: size, at: original) : try JournalWalk.journal(inputs: size, at: original)
                Report.progress("restore, the journal was ready in \(Format.fixed(walk?.seconds ?? 0, 1)) s")
            }
            let count = Self.runs(runs, size: size)
            Report.progress("restore, \(count) starts on \(Format.count(UInt64(size))) journaled inputs")
            var starts: [Start] = []
            for _ in 0..<count {
                let copy = directory + "/run.journal"
                for suffix in ["", "-wal", "-shm", ".lock"] { unlink(copy + suffix) }
                if size > 0 {
                    do {
                        try FileManager.default.copyItem(atPath: original, toPath: copy)
                    } catch {
                        throw BenchError("restore: cannot copy the journal to \(copy): \(error)")
                    }
                }
                starts.append(try start(flowd: flowd, state: copy, walk: walk))
            }
            if size == 0 { fixedCPU = median(starts.map(\.cpu)) }
            rows.append(row(size: size, walk: walk, starts: starts, fixedCPU: fixedCPU))
        }
        return rows
    }

    /// Starts flowd on the journal at `state` (none there: a fresh start) and times it.
    static func start(flowd: String, state: String, walk: JournalWalk?) throws -> Start {
        let context = "restore of \(walk.map { "\($0.inputs) inputs" } ?? "no journal")"
        let server = try ServerUnderTest.flowd(
            executable: flowd, app: walk?.app ?? JournalWalk.appName, arguments: ["--state", state, "--log-level", "notice"],
            // The launcher's login kinds would run `python3 login_screen.py --check` at start (25-100 ms of
            // a Python start, no restore): the row times the restore.
            environment: walk?.app == LauncherHistory.app ? ["FLOWD_PYTHON_SCREENS": "0"] : [:], waitForAccept: false)
        let host = WaitingHost(socket: server.socketPath, kind: walk?.kind ?? JournalWalk.kind, context: context)
        // The daemon goes first, so that a host still waiting for it sees the connection end.
        defer {
            server.process.signal(SIGKILL)
            server.process.waitForExit()
            host.close()
        }
        let client = try debugClient(server, context: context)
        defer { client.close() }
        let tree: Flowd_V1_Tree
        do {
            tree = try client.tree(timeoutMilliseconds: waitMilliseconds)
        } catch {
            throw BenchError("\(context): GetTree failed: \(error)")
        }
        let treeAt = cbr_now_ns()
        let placedAt = try host.waitForPlace()
        let cpu = cbr_process_cpu_seconds(server.pid)
        let resident = try OS.residentBytes(pid: server.pid)

        // The restore must have happened, whole: a journal that did not replay is moved aside and the
        // app starts fresh, which would time nothing.
        let stats: Flowd_V1_Stats
        do {
            let reply = try client.request(.getStats(Flowd_V1_GetStats()))
            guard case .stats(let answer) = reply.body else { throw BenchError("\(context): GetStats was answered with \(reply.bodyName)") }
            stats = answer
        } catch let error as BenchError {
            throw error
        } catch {
            throw BenchError("\(context): GetStats failed: \(error)")
        }
        let screens = tree.allNodes.filter { $0.kind == .screen }.count
        let log = (try? String(contentsOfFile: server.logPath, encoding: .utf8)) ?? ""
        guard stats.restoredInputs == UInt64(walk?.replayed ?? 0), screens == walk?.screens ?? 1 else {
            throw BenchError("\(context): flowd restored \(stats.restoredInputs) inputs and shows \(screens) screens, expected \(walk?.replayed ?? 0) and \(walk?.screens ?? 1); its log:\n\(log)")
        }
        return Start(
            tree: Double(treeAt - server.launchedAt) / 1e9, firstPlace: Double(placedAt - server.launchedAt) / 1e9,
            cpu: cpu, replayMillis: replayMillis(inLog: log), resident: resident)
    }

    /// How long a client waits for a daemon that restores (10^6 inputs take seconds).
    static let waitMilliseconds: Int32 = 600_000

    /// A debug client of `server`, connected as soon as its socket exists.
    static func debugClient(_ server: ServerUnderTest, context: String) throws -> FlowClient {
        let deadline = server.launchedAt + 30_000_000_000
        while true {
            do {
                return try FlowClient.connect(path: server.socketPath, role: .debug, name: "flowbench", timeoutMilliseconds: waitMilliseconds)
            } catch {
                if let status = server.process.exitCodeIfEnded() {
                    let log = (try? String(contentsOfFile: server.logPath, encoding: .utf8)) ?? ""
                    throw BenchError("\(context): flowd exited during start-up (status \(status)): \(log)")
                }
                guard cbr_now_ns() < deadline else { throw BenchError("\(context): no debug connection within 30 s: \(error)") }
                usleep(100)
            }
        }
    }

    /// The `milliseconds` of the log line "restored the app from its journal" (nil: no such line).
    static func replayMillis(inLog log: String) -> Double? {
        guard let line = log.split(separator: "\n").first(where: { $0.contains("restored the app from its journal") }),
              let field = line.range(of: "milliseconds=") else { return nil }
        return Double(line[field.upperBound...].prefix { $0.isNumber || $0 == "." })
    }

    private static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    /// The row of one size; `fixedCPU` is a start's CPU without a journal, left out of the CPU per input.
    private static func row(size: Int, walk: JournalWalk?, starts: [Start], fixedCPU: Double) -> TableRow {
        let tree = median(starts.map(\.tree)), place = median(starts.map(\.firstPlace))
        let cpu = median(starts.map(\.cpu))
        let replays = starts.compactMap(\.replayMillis)
        let resident = starts.map(\.resident).sorted()[starts.count / 2]
        var note = "first Place \(Format.millis(place)); CPU to restored \(Format.millis(cpu))"
        if let walk {
            note += "; replay in flowd \(replays.isEmpty ? "-" : Benchmarks.ms(median(replays))); journal \(Format.bytes(Double(walk.bytes)))"
            note += ", \(walk.screens) screens re-placed"
            if walk.replayed != walk.inputs { note += "; compacted: \(Format.count(UInt64(walk.replayed))) inputs after its checkpoint replayed" }
        } else {
            note += "; a fresh start (no journal): the fixed cost"
        }
        note += "; tree min \(Format.millis(starts.map(\.tree).min()!)), max \(Format.millis(starts.map(\.tree).max()!))"
        let history = walk.map { "\($0.app): launch -> restored tree, \(Format.count(UInt64(size))) inputs" } ?? "deep-stack: launch -> tree, no journal"
        return TableRow(
            benchmark: "restore",
            setting: history,
            count: "\(starts.count) runs", p50: Format.millis(tree),
            rate: walk == nil ? "-" : Format.rate(Double(size) / max(tree, 1e-9)),
            serverCPU: walk.map { Format.micros(max(cpu - fixedCPU, 0) * 1e9 / Double(max($0.replayed, 1))) } ?? "-",
            memory: Format.bytes(Double(resident)), note: note)
    }
}

/// A screen host that waits for a daemon still restoring, as a host queued in the socket's backlog
/// does: on a thread of its own it connects as soon as the socket exists, says `Hello`, and notes when
/// its first `Place` arrives.
private final class WaitingHost: @unchecked Sendable {
    // @unchecked: the thread writes `placedAt`, `failure` and `fd` before it signals `finished`; they
    // are read only after a wait on it.
    private var placedAt: UInt64 = 0
    private var failure: BenchError?
    private var fd: Int32 = -1
    private let finished = DispatchSemaphore(value: 0)
    private var waited = false

    init(socket: String, kind: String, context: String) {
        Thread { [self] in
            defer { finished.signal() }
            var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
            let deadline = cbr_now_ns() + 30_000_000_000
            while fd < 0 {
                fd = cbr_connect(socket, &error)
                if fd < 0 {
                    guard cbr_now_ns() < deadline else {
                        failure = BenchError(context: "\(context): the host could not connect within 30 s", cError: error)
                        return
                    }
                    usleep(100)
                }
            }
            do {
                _ = try FlowHost.handshake(fd: fd, kind: kind, token: nil, context: context, timeoutMilliseconds: RestoreBench.waitMilliseconds)
                placedAt = cbr_now_ns()
            } catch {
                failure = error as? BenchError ?? BenchError("\(context): \(error)")
            }
        }.start()
    }

    /// When the first `Place` arrived (`cbr_now_ns`).
    func waitForPlace() throws -> UInt64 {
        if !waited { finished.wait() }
        waited = true
        if let failure { throw failure }
        return placedAt
    }

    /// Waits for the thread and closes the connection.
    func close() {
        _ = try? waitForPlace()
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
