import CBenchRelay
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Fairness under a flood (issue 15): one host sending outputs as fast as it can must not make
/// the others miss a frame.
extension Benchmarks {
    /// App `bench-echo` with `hosts + 1` screens: `hosts` echo hosts (one `_latency-load` process)
    /// keep `window` outputs each in flight and time each to its Update, as in `hung-host`. After
    /// `warmupSeconds`, `seconds` are measured with them alone; then host `echo-<hosts>` (`_flood`)
    /// writes outputs for its screen as fast as its socket takes them (acking its Updates), and
    /// `seconds` more are measured. Two rows: the quiet hosts' latency without the flood and during it.
    /// `neighbours` CPU-bound processes (shell loops) run beside it all the while, from before the
    /// warm-up; `scheduling` is given to every thread of the daemon once it listens (what a unit's
    /// `Nice=` or real-time policy gives it: docs/performance.md, "Beside other programs").
    static func flood(flowd: String, hosts: Int, window: Int, warmupSeconds: Double, seconds: Double,
                      neighbours: Int = 0, scheduling: DaemonScheduling = .unchanged) throws -> [TableRow] {
        let context = "flood"
        let server = try ServerUnderTest.flowd(
            executable: flowd, app: "bench-echo", arguments: flowdArguments, environment: ["FLOWD_BENCH_SCREENS": "\(hosts + 1)"])
        try scheduling.apply(to: server.pid)
        // Released (SIGKILLed) when this returns or throws.
        let spinners = try (0..<neighbours).map { _ in try ChildProcess(executable: "/bin/sh", arguments: ["-c", "while :; do :; done"]) }
        defer { withExtendedLifetime(spinners) {} }
        let flooder = try ChildProcess.flowbench(["_flood", "--socket", server.socketPath, "--kind", "echo-\(hosts)"])
        _ = try flooder.expect("connected")
        let load = try ChildProcess.flowbench([
            "_latency-load", "--socket", server.socketPath, "--connections", "\(hosts)", "--window", "\(window)",
        ])
        _ = try load.expect("ready")
        func wait(_ seconds: Double, flooding: Bool = true) throws {
            usleep(UInt32(seconds * 1e6))
            if let status = load.exitCodeIfEnded() {
                throw BenchError("\(context): the measuring hosts ended early (status \(status)); their error is above")
            }
            if flooding, let status = flooder.exitCodeIfEnded() {
                throw BenchError("\(context): the flooding host ended early (status \(status)); its error is above")
            }
        }
        try wait(warmupSeconds)
        let quietStart = cbr_now_ns()
        let cpuQuietStart = cbr_process_cpu_seconds(server.pid)
        try wait(seconds)
        let floodStart = cbr_now_ns()
        let cpuFloodStart = cbr_process_cpu_seconds(server.pid)
        try flooder.writeLine("flood")
        try wait(seconds)
        let floodEnd = cbr_now_ns()
        let cpuFloodEnd = cbr_process_cpu_seconds(server.pid)
        try flooder.writeLine("stop")
        let flood = try flooder.expect("result")
        // Let the daemon work through what the flood left in its socket, and answer the outputs
        // sent just before the end.
        try wait(0.3, flooding: false)
        try load.writeLine("phases bounds=\(quietStart),\(floodStart),\(floodEnd)")
        let quiet = try load.expect("result")
        let flooded = try load.expect("result")
        load.waitForExit()

        func row(_ line: ResultLine, _ setting: String, cpu: (Double, Double)) throws -> TableRow {
            let beside = neighbours == 0 ? "" : ", \(neighbours) CPU-bound neighbour\(neighbours == 1 ? "" : "s")\(scheduling.label)"
            var (row, _, phaseSeconds) = try phaseRow("flood", "\(hosts) echo hosts, window \(window)\(beside): \(setting)", line, context: context)
            if cpu.0 >= 0, cpu.1 >= 0 { row.note += "; daemon CPU \(Format.fixed((cpu.1 - cpu.0) / phaseSeconds * 100, 0))%" }
            return row
        }
        let quietRow = try row(quiet, "alone", cpu: (cpuQuietStart, cpuFloodStart))
        var floodRow = try row(flooded, "1 more host flooding outputs", cpu: (cpuFloodStart, cpuFloodEnd))
        let before = try LatencySummary(quiet), during = try LatencySummary(flooded)
        let p99Ratio = Double(during.p99) / Double(max(1, before.p99))
        let handled = try flood.double("updates"), sent = try flood.double("outputs"), floodSeconds = try flood.double("seconds")
        floodRow.note += "; flood: \(Format.rate(handled / floodSeconds)) outputs handled (\(Format.rate(sent / floodSeconds)) written)"
        floodRow.note += "; x\(Format.fixed(Double(during.p50) / Double(max(1, before.p50)), 2)) p50, x\(Format.fixed(p99Ratio, 2)) p99 of alone (target p99 <= x2 \(p99Ratio <= 2 ? "met" : "MISSED"))"
        return [quietRow, floodRow]
    }
}

/// What the flood gives the daemon's threads: nothing, a nice value, or SCHED_RR with reset-on-fork.
enum DaemonScheduling: Equatable {
    case unchanged
    case nice(Int)
    case roundRobin(priority: Int)

    /// What a row's setting says of it.
    var label: String {
        switch self {
        case .unchanged: ""
        case .nice(let value): ", daemon at nice \(value)"
        case .roundRobin(let priority): ", daemon SCHED_RR \(priority)"
        }
    }

    func apply(to pid: pid_t) throws {
        let (nice, priority): (Int32, Int32)
        switch self {
        case .unchanged: return
        case .nice(let value): (nice, priority) = (Int32(value), 0)
        case .roundRobin(let value): (nice, priority) = (0, Int32(value))
        }
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        guard cbr_set_scheduling(pid, nice, priority, &error) == 0 else { throw BenchError(context: "flood", cError: error) }
    }
}
