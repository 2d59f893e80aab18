import FlowdTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The repository's root (for scripts/bench).
private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL.path

/// Runs `scripts/bench --debug --quick` (flowbench against the built debug flowd):
/// every benchmark must run and the one table must be printed. Counts only,
/// no timing assertions.
@Test(.timeLimit(.minutes(3)))
func quickRunPrintsTheWholeTable() throws {
    let flowbench = productsDirectory.appendingPathComponent("flowbench")
    let flowd = productsDirectory.appendingPathComponent("flowd")
    try #require(FileManager.default.isExecutableFile(atPath: flowbench.path), "flowbench is not built at \(flowbench.path); run swift build first")
    try #require(FileManager.default.isExecutableFile(atPath: flowd.path), "flowd is not built at \(flowd.path); run swift build first")

    // Output to files, not pipes: a child started by a parallel test could keep a pipe open.
    let directory = makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let outPath = directory + "/stdout", errPath = directory + "/stderr"
    _ = FileManager.default.createFile(atPath: outPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [repositoryRoot + "/scripts/bench", "--debug", "--quick"]
    process.standardOutput = FileHandle(forWritingAtPath: outPath)
    process.standardError = FileHandle(forWritingAtPath: errPath)
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""

    #expect(process.terminationStatus == 0, "scripts/bench --debug --quick failed:\n\(stderr)\n\(stdout)")
    let lines = stdout.split(separator: "\n").map(String.init)
    let header = try #require(lines.first { $0.hasPrefix("| benchmark") }, "no table header in:\n\(stdout)")
    for column in ["setting", "n", "p50", "p99", "p99.9", "rate", "server CPU/op", "memory", "note"] {
        #expect(header.contains(" \(column) "), "column \(column) missing from \(header)")
    }
    func rows(_ name: String) -> Int { lines.filter { $0.hasPrefix("| \(name) ") }.count }
    #expect(rows("baseline-pingpong") == 1)
    #expect(rows("baseline-relay") == 1)
    #expect(rows("flowd-ping") == 1)
    #expect(rows("baseline-echo") == 2)
    #expect(rows("flowd-ping-echo") == 2)
    #expect(rows("idle-connections") == 2)
    #expect(rows("startup") == 1)
    #expect(rows("flowd-relay") == 1)
    #expect(rows("dbus-call") == 1)
    // Where the row can run (dbus-daemon and libsystemd.so.0 are here; scripts/test installs them),
    // it must have been measured, and flowd-relay's note compares with it.
    let dbusRow = try #require(lines.first { $0.hasPrefix("| dbus-call ") })
    let relayRow = try #require(lines.first { $0.hasPrefix("| flowd-relay ") })
    if dbusCanRun {
        #expect(!dbusRow.contains("unavailable"), "dbus-daemon and libsystemd are here, but: \(dbusRow)")
        #expect(relayRow.range(of: #"x[0-9.]+ p50, x[0-9.]+ p99 vs dbus-call"#, options: .regularExpression) != nil, "\(relayRow)")
        #expect(!relayRow.contains("vs dbus-call (target"), "the D-Bus target was dropped: \(relayRow)")
    } else {
        #expect(dbusRow.contains("unavailable: "), "\(dbusRow)")
        #expect(relayRow.contains("dbus-call unavailable"), "\(relayRow)")
    }
    #expect(rows("flowd-echo") == 2)
    #expect(rows("live-screens") == 1)
    #expect(rows("tree-cost") == 6)
    #expect(rows("spawn-startup") == 1)
    #expect(rows("spawn-pool") == 4, "attached, spawned, pooled, and the idle cost")
    #expect(rows("screen-restart") == 1)
    #expect(rows("hung-host") == 2)
    #expect(rows("flood") == 2, "the quiet hosts alone and during the flood")
    #expect(rows("restore") == 2, "a start without a journal and one on 1,000 journaled inputs")
    #expect(rows("history") == 1, "steps through 1,000 journaled inputs")
    if let history = lines.first(where: { $0.hasPrefix("| history ") }) {
        #expect(history.contains("a step to a random moment of 1,000 inputs") && history.contains("pings answered"), "\(history)")
    }
}

/// Without dbus-daemon (PATH names no directory that has it) the dbus-call row says so, the other
/// rows still run, and flowd-relay's note says there was nothing to compare with.
@Test(.timeLimit(.minutes(2)))
func dbusRowSaysWhyWhenThereIsNoDBusDaemon() throws {
    let flowd = productsDirectory.appendingPathComponent("flowd").path
    var environment = ProcessInfo.processInfo.environment
    environment["PATH"] = makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: environment["PATH"]!) }
    let run = try ProductRun.run("flowbench", ["flowd-relay", "--quick", "--flowd", flowd], environment: environment)
    #expect(run.status == 0, "flowbench flowd-relay failed:\n\(run.stderr)\n\(run.stdout)")
    let lines = run.stdout.split(separator: "\n").map(String.init)
    let dbusRow = try #require(lines.first { $0.hasPrefix("| dbus-call ") }, "no dbus-call row in:\n\(run.stdout)")
    #expect(dbusRow.contains("unavailable: dbus-daemon not found on PATH"), "\(dbusRow)")
    let cells = dbusRow.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
    #expect(cells.count == 10 && cells[2...7].allSatisfy { $0 == "-" }, "figures in an unavailable row: \(dbusRow)")
    let relayRow = try #require(lines.first { $0.hasPrefix("| flowd-relay ") })
    #expect(relayRow.contains("vs baseline-relay; dbus-call unavailable"), "\(relayRow)")
    #expect(lines.contains { $0.hasPrefix("| baseline-relay ") })
}

/// Whether flowbench's dbus-call row can run here: dbus-daemon on PATH and libsystemd.so.0 loadable.
private var dbusCanRun: Bool {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    let daemon = path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/dbus-daemon") }
    guard daemon, let library = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL) else { return false }
    dlclose(library)
    return true
}

/// `--pin` puts the server under test on its own CPU and the load on the other, says so above the
/// table, and the relay row holds flowd's CPU against the C relay server's. Where flowd ran is read
/// from flowd itself: `--flowd` is a wrapper that writes its process's `Cpus_allowed_list`
/// (/proc/PID/status, the affinity flowd inherits) and then execs flowd in the same process. No timing.
@Test(.timeLimit(.minutes(2)))
func pinnedRunPutsFlowdOnTheCPUItNames() throws {
    let flowd = productsDirectory.appendingPathComponent("flowd").path
    let directory = makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let wrapper = directory + "/flowd", affinity = directory + "/affinity"
    try """
        #!/bin/sh
        grep '^Cpus_allowed_list:' /proc/$$/status >> '\(affinity)'
        exec '\(flowd)' "$@"

        """.write(toFile: wrapper, atomically: true, encoding: .utf8)
    chmod(wrapper, 0o755)
    let run = try ProductRun.run("flowbench", ["flowd-relay", "--quick", "--pin", "--flowd", wrapper])
    guard CPU.allowedCount >= 2 else {
        #expect(run.status != 0 && run.stderr.contains("--pin needs 2 CPUs or more"), "\(run.stderr)")
        return
    }
    #expect(run.status == 0, "flowbench flowd-relay --pin failed:\n\(run.stderr)\n\(run.stdout)")
    let lines = run.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first?.hasPrefix("flowbench --quick --pin on ") == true, "\(run.stdout)")
    // "pinned: the server under test on CPU 1, flowbench and its load on CPU 0"
    let pinned = try #require(lines.first { $0.hasPrefix("pinned: the server under test on CPU ") }, "\(run.stdout)")
    let cpus = pinned.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
    try #require(cpus.count == 2 && cpus[0] != cpus[1], "\(pinned)")
    let started = try String(contentsOfFile: affinity, encoding: .utf8).split(separator: "\n")
    #expect(!started.isEmpty, "flowd never started")
    for line in started {
        #expect(line.split(separator: "\t").last.map(String.init) == "\(cpus[0])",
                "flowd ran with \(line), not on the server's CPU alone (\(pinned))")
    }
    let relayRow = try #require(lines.first { $0.hasPrefix("| flowd-relay ") }, "no flowd-relay row in:\n\(run.stdout)")
    #expect(relayRow.contains(" CPU (target <= 2 "), "\(relayRow)")
}

/// `--pin` where only one CPU is allowed (`taskset -c 0`) says why and exits non-zero, before any
/// benchmark runs.
@Test(.timeLimit(.minutes(1)))
func pinOnOneCPUIsRefused() throws {
    let taskset = URL(fileURLWithPath: "/usr/bin/taskset")
    try #require(FileManager.default.isExecutableFile(atPath: taskset.path), "taskset (util-linux) is missing")
    let flowbench = productsDirectory.appendingPathComponent("flowbench").path
    let run = try ProductRun.run(executable: taskset, ["-c", "0", flowbench, "flowd-relay", "--quick", "--pin"])
    #expect(run.status != 0, "\(run.stdout)")
    #expect(run.stderr.contains("--pin needs 2 CPUs or more (one for the server, one for its load); this process may run on 1"), "\(run.stderr)")
    #expect(!run.stdout.contains("| baseline-relay"), "a benchmark ran: \(run.stdout)")
}

/// The CPUs this test process may run on (its affinity: a cgroup's cpuset narrows it).
private enum CPU {
    static var allowedCount: Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") })
        else { return sysconf(Int32(_SC_NPROCESSORS_ONLN)) }
        // "0-1,4,6-7"
        return line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces).split(separator: ",").reduce(0) { count, part in
            let bounds = part.split(separator: "-").compactMap { Int($0) }
            return count + (bounds.count == 2 ? bounds[1] - bounds[0] + 1 : 1)
        }
    }
}

/// `live-screens` puts every screen on one host: past flowd's default cap of screens per host
/// (16,384) it raises the cap to its count, or the screens beyond it would wait for another host
/// and the row would stall (the full `scripts/bench` run, 101 presses, did). 17 presses: 16,984 screens.
@Test(.timeLimit(.minutes(3)))
func liveScreensGoesPastTheCapOfScreensPerHost() throws {
    let flowd = productsDirectory.appendingPathComponent("flowd").path
    let run = try ProductRun.run("flowbench", ["live-screens", "--presses", "17", "--flowd", flowd])
    #expect(run.status == 0, "flowbench live-screens --presses 17 failed:\n\(run.stderr)\n\(run.stdout)")
    let row = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("| live-screens ") }, "\(run.stdout)")
    #expect(row.contains("deep-stack: 16,984 screens, one host"), "\(row)")
}
