import CBenchRelay
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The benchmarks themselves: each starts its server and client processes,
/// collects their result lines and returns table rows.
enum Benchmarks {
    /// The window of the throughput runs.
    static let defaultWindow = 64

    // MARK: - Latency

    /// One connection to `server`, one request in flight: round-trip percentiles.
    /// Also returns the server's CPU time per round trip, warm-up included (nanoseconds; nil if unreadable).
    static func pingPong(_ server: ServerUnderTest, settings: BenchSettings) throws -> (LatencySummary, Double?) {
        try latencyClient(
            ["_pingpong", "--socket", server.socketPath, "--target", server.target.rawValue], serverPID: server.pid, settings: settings)
    }

    /// Runs the latency client `flowbench arguments --count N --warmup W` to its `result` line;
    /// also returns the CPU time of process `serverPID` per round trip over the whole client run,
    /// warm-up included (nanoseconds; nil if unreadable).
    static func latencyClient(_ arguments: [String], serverPID: Int32, settings: BenchSettings) throws -> (LatencySummary, Double?) {
        let cpuBefore = cbr_process_cpu_seconds(serverPID)
        let client = try ChildProcess.flowbench(
            arguments + ["--count", "\(settings.latencyCount)", "--warmup", "\(settings.latencyWarmup)"])
        let summary = try LatencySummary(client.expect("result"))
        client.waitForExit()
        let cpuAfter = cbr_process_cpu_seconds(serverPID)
        let roundTrips = Double(settings.latencyCount + settings.latencyWarmup)
        let cpu = cpuBefore >= 0 && cpuAfter >= 0 ? (cpuAfter - cpuBefore) * 1e9 / roundTrips : nil
        return (summary, cpu)
    }

    /// Client -> C baseline echo server -> client.
    static func baselinePingPong(settings: BenchSettings) throws -> (TableRow, LatencySummary) {
        let server = try ServerUnderTest.baseline(mode: "echo")
        let (summary, cpu) = try pingPong(server, settings: settings)
        return (latencyRow("baseline-pingpong", "C libuv echo, 2 processes", summary, cpu), summary)
    }

    /// Host A -> C relay -> host B -> C relay -> host A.
    static func baselineRelay(settings: BenchSettings) throws -> (TableRow, RelayBaseline) {
        let server = try ServerUnderTest.baseline(mode: "relay")
        let hostB = try ChildProcess.flowbench(["_echo-peer", "--socket", server.socketPath])
        _ = try hostB.expect("connected")
        let (summary, cpu) = try pingPong(server, settings: settings)
        hostB.stop()
        return (latencyRow("baseline-relay", "A -> C relay -> B -> relay -> A", summary, cpu), RelayBaseline(latency: summary, serverCPU: cpu))
    }

    /// What `flowd-relay` is held against: the C relay's round trips and its server's CPU per round trip (ns).
    struct RelayBaseline {
        var latency: LatencySummary
        var serverCPU: Double?
    }

    /// Ping -> flowd -> Pong: the daemon's framing, decoding and reply path (no flows yet).
    static func flowdPing(flowd: String, settings: BenchSettings, baseline: LatencySummary?) throws -> TableRow {
        let server = try ServerUnderTest.flowd(executable: flowd)
        let (summary, cpu) = try pingPong(server, settings: settings)
        var row = latencyRow("flowd-ping", "Ping/Pong, 2 processes", summary, cpu)
        if let baseline, baseline.p50 > 0, baseline.p99 > 0 {
            row.note = "\(row.note); x\(Format.fixed(Double(summary.p50) / Double(baseline.p50), 2)) p50, x\(Format.fixed(Double(summary.p99) / Double(baseline.p99), 2)) p99 vs baseline-pingpong"
        }
        return row
    }

    static func latencyRow(_ name: String, _ setting: String, _ summary: LatencySummary, _ cpu: Double?) -> TableRow {
        TableRow(
            benchmark: name, setting: setting, count: Format.count(summary.count),
            p50: Format.micros(summary.p50), p99: Format.micros(summary.p99), p999: Format.micros(summary.p999),
            serverCPU: cpu.map { "\(Format.fixed($0, 0)) ns" } ?? "-", note: "max \(Format.micros(summary.max))")
    }

    // MARK: - Throughput

    /// `clients` connections each keeping `window` requests in flight against `server`.
    static func echo(_ server: ServerUnderTest, name: String, clients: Int, window: Int, settings: BenchSettings,
                     hostKindPrefix: String? = nil) throws -> TableRow {
        let client = try ChildProcess.flowbench(["_load"] + (hostKindPrefix.map { ["--host-kind-prefix", $0] } ?? []) + [ "--socket", server.socketPath, "--target", server.target.rawValue,
            "--connections", "\(clients)", "--window", "\(window)",
            "--warmup", "\(settings.echoWarmup)", "--seconds", "\(settings.echoSeconds)",
            "--server-pid", "\(server.pid)",
        ])
        let line = try client.expect("result")
        client.waitForExit()
        let messages = try line.double("messages")
        let seconds = try line.double("seconds")
        let serverCPU = try line.double("server_cpu")
        let clientCPU = try line.double("client_cpu")
        var row = TableRow(
            benchmark: name, setting: "\(clients) client\(clients == 1 ? "" : "s"), window \(window)",
            count: Format.count(UInt64(messages)), rate: Format.rate(messages / seconds))
        if serverCPU >= 0, messages > 0 {
            row.serverCPU = "\(Format.fixed(serverCPU * 1e9 / messages, 0)) ns"
        }
        row.note = "server CPU \(Format.fixed(serverCPU / seconds * 100, 0))%, clients \(Format.fixed(clientCPU / seconds * 100, 0))%"
        return row
    }

    /// Echo throughput of the C baseline with batched replies.
    static func baselineEcho(clients: Int, window: Int, settings: BenchSettings) throws -> TableRow {
        let server = try ServerUnderTest.baseline(mode: "echo")
        return try echo(server, name: "baseline-echo", clients: clients, window: window, settings: settings)
    }

    /// Ping throughput of flowd (coalesced replies), for comparison with baseline-echo.
    static func flowdPingEcho(flowd: String, clients: Int, window: Int, settings: BenchSettings) throws -> TableRow {
        let server = try ServerUnderTest.flowd(executable: flowd)
        return try echo(server, name: "flowd-ping-echo", clients: clients, window: window, settings: settings)
    }

    // MARK: - Scale

    /// Resident memory of `server` with `count` idle handshaken connections, above
    /// the same server with none; and the time to connect and handshake them all.
    static func idleConnections(_ server: ServerUnderTest, name: String, count: Int, target: Double?) throws -> TableRow {
        // One full handshake first, so lazily built state is in the "empty" figure.
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        let probe = cbr_connect(server.socketPath, &error)
        guard probe >= 0 else { throw BenchError(context: "idle-connections probe", cError: error) }
        let hello = server.target.hello
        let handshaken = cbr_handshake(probe, hello, hello.count, server.target.handshakeFrames, 30_000, &error)
        close(probe)
        guard handshaken == 0 else { throw BenchError(context: "idle-connections probe", cError: error) }

        let before = try OS.residentBytes(pid: server.pid)
        let perProcess = 4_000
        var holders: [ChildProcess] = []
        var handshakeSeconds = 0.0
        var remaining = count
        while remaining > 0 {
            let share = min(perProcess, remaining)
            let holder = try ChildProcess.flowbench([
                "_idle", "--socket", server.socketPath, "--target", server.target.rawValue, "--count", "\(share)",
            ])
            handshakeSeconds += try holder.expect("ready").double("handshake")
            holders.append(holder)
            remaining -= share
        }
        let after = try OS.residentBytes(pid: server.pid)
        for holder in holders {
            holder.closeInput()
            holder.waitForExit()
        }
        let perConnection = (Double(after) - Double(before)) / Double(count)
        var note = "empty \(Format.bytes(Double(before))), with \(Format.count(UInt64(count))): \(Format.bytes(Double(after)))"
        if let target {
            note += perConnection <= target
                ? "; target <= \(Format.bytes(target)) met"
                : "; target <= \(Format.bytes(target)) MISSED by \(Format.bytes(perConnection - target))"
        }
        return TableRow(
            benchmark: name, setting: "\(Format.count(UInt64(count))) idle handshaken clients",
            count: Format.count(UInt64(count)), rate: Format.rate(Double(count) / handshakeSeconds),
            memory: "\(Format.bytes(perConnection))/conn", note: "connect+handshake all in \(Format.millis(handshakeSeconds)); " + note)
    }

    // MARK: - Start-up

    /// Launches flowd `runs` times; the time from launch to the first accepted connection.
    static func startup(flowd: String, runs: Int) throws -> TableRow {
        var seconds: [Double] = []
        for _ in 0..<runs {
            let server = try ServerUnderTest.flowd(executable: flowd)
            seconds.append(server.startupSeconds)
        }
        seconds.sort()
        let median = seconds[seconds.count / 2]
        return TableRow(
            benchmark: "startup", setting: "flowd launch -> first accept", count: "\(runs) runs",
            p50: Format.millis(median), note: "min \(Format.millis(seconds.first!)), max \(Format.millis(seconds.last!)); connect retried every 100 µs")
    }
}
