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
    static func flood(flowd: String, hosts: Int, window: Int, warmupSeconds: Double, seconds: Double) throws -> [TableRow] {
        let context = "flood"
        let server = try ServerUnderTest.flowd(
            executable: flowd, app: "bench-echo", arguments: flowdArguments, environment: ["FLOWD_BENCH_SCREENS": "\(hosts + 1)"])
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
            var (row, _, phaseSeconds) = try phaseRow("flood", "\(hosts) echo hosts, window \(window): \(setting)", line, context: context)
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
