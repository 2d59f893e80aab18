import CBenchRelay
import FlowControl
import FlowWire
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The rows of screens that survive (docs/protocol.md §19): a crashed spawned screen restarted and
/// re-placed, and a hung host found by the watchdog without delaying the others.
extension Benchmarks {
    /// One phase of `_latency-load` as a row (`hung-host`, `flood`): the latency statistics of the
    /// outputs answered, their rate, where in the phase the max was sent and what stayed unanswered.
    /// Each row adds the daemon's CPU its own way.
    static func phaseRow(
        _ benchmark: String, _ setting: String, _ line: ResultLine, context: String
    ) throws -> (row: TableRow, summary: LatencySummary, seconds: Double) {
        let summary = try LatencySummary(line)
        let seconds = try line.double("seconds")
        guard summary.count > 0 else { throw BenchError("\(context): no output was answered in phase \(setting)") }
        var row = latencyRow(benchmark, setting, summary, nil)
        row.rate = Format.rate(Double(summary.count) / seconds)
        row.note += " (output sent \(Format.fixed(try line.double("max_at"), 2)) s into the phase)"
        let unanswered = Int(try line.double("unanswered"))
        if unanswered > 0 { row.note += "; \(unanswered) unanswered at the end (counted with their time so far)" }
        return (row, summary, seconds)
    }

    // MARK: - Debug connection

    /// Two debug connections: one subscribed to `kinds`, read by `event`, and one for requests
    /// (stats, tree, injections), so that no event ever arrives while a request waits for its answer.
    struct EventWatcher {
        let events: FlowClient
        let control: FlowClient
        let context: String

        init(socket: String, kinds: [Flowd_V1_EventKind], context: String) throws {
            self.context = context
            do {
                events = try FlowClient.connect(path: socket, role: .debug, name: "flowbench events")
                control = try FlowClient.connect(path: socket, role: .debug, name: "flowbench")
                try events.subscribe(kinds: kinds)
            } catch {
                throw BenchError("\(context): debug connection to flowd failed: \(error)")
            }
        }

        /// The next event within `timeoutMilliseconds` (nil if none came).
        func event(timeoutMilliseconds: Int32) throws -> Flowd_V1_Event? {
            do {
                while let envelope = try events.receiveIfAvailable(timeoutMilliseconds: timeoutMilliseconds) {
                    if case .event(let event) = envelope.body { return event }
                    if case .lagged(let lagged) = envelope.body {
                        throw BenchError("\(context): the debug connection lagged; \(lagged.dropped) events dropped")
                    }
                }
                return nil
            } catch let error as BenchError {
                throw error
            } catch {
                throw BenchError("\(context): no event from flowd: \(error)")
            }
        }

        /// The next event; fails after 30 s without one.
        func nextEvent() throws -> Flowd_V1_Event {
            guard let event = try event(timeoutMilliseconds: 30_000) else {
                throw BenchError("\(context): no event from flowd within 30 s")
            }
            return event
        }

        /// The daemon's counters.
        func stats() throws -> Flowd_V1_Stats {
            let reply = try asking("GetStats") { try control.request(.getStats(Flowd_V1_GetStats())) }
            guard case .stats(let stats) = reply.body else { throw BenchError("\(context): expected Stats, got \(reply.bodyName)") }
            return stats
        }

        /// The daemon's tree.
        func tree() throws -> Flowd_V1_Tree {
            try asking("GetTree") { try control.tree() }
        }

        /// The result of `request`, its failure told as `what` failed.
        func asking<Result>(_ what: String, _ request: () throws -> Result) throws -> Result {
            do {
                return try request()
            } catch {
                throw BenchError("\(context): \(what) failed: \(error)")
            }
        }
    }

    /// The screen `id` in the navigation tree under `node`.
    static func screenInfo(_ id: UInt64, in node: Flowd_V1_NavNode) -> Flowd_V1_ScreenInfo? {
        if node.id == id, node.hasScreen { return node.screen }
        for child in node.children {
            if let found = screenInfo(id, in: child) { return found }
        }
        return node.hasPresented ? screenInfo(id, in: node.presented) : nil
    }

    /// Milliseconds between two event (or wall-clock) times in nanoseconds.
    static func millis(_ from: Int64, _ to: Int64) -> Double { Double(to - from) / 1e6 }

    /// `value` milliseconds as `12.3 ms`.
    static func ms(_ value: Double) -> String { "\(Format.fixed(value, 1)) ms" }

    // MARK: - Screen restart

    /// App `bench-spawn` with `--restart-screens RUNS/60`: the spawned screen's process is
    /// SIGKILLed `runs` times. Each time: from the wall clock just before kill(2) to the daemon's
    /// `ACK` event of the re-`Place`: the first `ACK` of the screen on the connection of the
    /// process spawned after `SCREEN_RESTARTED` (the re-`Place` is the first command it gets; the
    /// daemon reports no `PLACE` event for a re-place). The new process then has the screen's
    /// current state and placement and said so. Then checks `screen_restarts == runs`, no
    /// `RESTART_GAVE_UP` and the flow count unchanged.
    static func screenRestart(flowd: String, runs: Int) throws -> TableRow {
        let context = "screen-restart"
        let server = try ServerUnderTest.flowd(
            executable: flowd, app: "bench-spawn", arguments: flowdArguments + ["--restart-screens", "\(runs)/60"],
            environment: ["FLOWD_BENCH_SPAWN": OS.executablePath])
        let watcher = try EventWatcher(
            socket: server.socketPath,
            kinds: [.processSpawned, .processExited, .screenRestarted, .restartGaveUp, .handshake, .ack], context: context)
        let (fd, home) = try FlowHost.connect(socket: server.socketPath, kind: "bench-home", context: context)
        defer { close(fd) }
        try FlowHost.write(FlowHost.outputFrame(screen: home, button: 0), to: fd, context: context)
        var screen: UInt64 = 0
        while true {
            let event = try watcher.nextEvent()
            if event.kind == .processSpawned { screen = event.screenID }
            if event.kind == .ack, screen != 0, event.screenID == screen { break }
        }
        let before = try watcher.stats()

        var total: [Double] = [], exited: [Double] = [], spawned: [Double] = [], handshaken: [Double] = []
        var cpuSeconds = 0.0
        var cpuKnown = true
        for run in 1...runs {
            guard let pid = screenInfo(screen, in: try watcher.tree().window).map(\.pid), pid > 0 else {
                throw BenchError("\(context): the tree shows no process for spawned screen \(screen) before kill \(run)")
            }
            let cpuBefore = cbr_process_cpu_seconds(server.pid)
            let killedAt = OS.wallClockNanos()
            guard kill(pid, SIGKILL) == 0 else {
                throw BenchError("\(context): kill(\(pid), SIGKILL): \(String(cString: strerror(errno)))")
            }
            var exitedAt: Int64 = 0, restartedAt: Int64 = 0, spawnedAt: Int64 = 0, handshakeAt: Int64 = 0
            var newConnection: UInt64 = 0
            while true {
                let event = try watcher.nextEvent()
                // HANDSHAKE names no screen: the new process's connection does.
                if event.kind == .handshake, newConnection != 0, event.connectionID == newConnection {
                    handshakeAt = event.timeUnixNanos
                }
                guard event.screenID == screen else { continue }
                switch event.kind {
                case .restartGaveUp:
                    throw BenchError("\(context): RESTART_GAVE_UP at kill \(run) of \(runs): \(event.text)")
                case .processExited where exitedAt == 0:
                    exitedAt = event.timeUnixNanos
                case .screenRestarted:
                    restartedAt = event.timeUnixNanos
                case .processSpawned where restartedAt != 0:
                    spawnedAt = event.timeUnixNanos
                    newConnection = event.connectionID
                default:
                    break
                }
                if event.kind == .ack, newConnection != 0, event.connectionID == newConnection {
                    guard handshakeAt != 0 else { throw BenchError("\(context): an ACK from the new process before its HANDSHAKE event") }
                    let cpuAfter = cbr_process_cpu_seconds(server.pid)
                    if cpuBefore >= 0, cpuAfter >= 0 { cpuSeconds += cpuAfter - cpuBefore } else { cpuKnown = false }
                    total.append(millis(killedAt, event.timeUnixNanos))
                    exited.append(millis(killedAt, exitedAt))
                    spawned.append(millis(killedAt, spawnedAt))
                    handshaken.append(millis(killedAt, handshakeAt))
                    break
                }
            }
        }

        let after = try watcher.stats()
        guard after.screenRestarts == before.screenRestarts + UInt64(runs) else {
            throw BenchError("\(context): stats show \(after.screenRestarts - before.screenRestarts) screen restarts for \(runs) kills")
        }
        guard after.restartsGivenUp == 0 else { throw BenchError("\(context): stats show \(after.restartsGivenUp) restarts given up") }
        guard after.flows == before.flows else {
            throw BenchError("\(context): \(before.flows) flows before the kills, \(after.flows) after")
        }
        let summary = LatencySummary(samplesNanoseconds: total.map { UInt64(($0 * 1e6).rounded()) })
        func median(_ values: [Double]) -> String { ms(values.sorted()[(values.count - 1) / 2]) }
        return TableRow(
            benchmark: "screen-restart", setting: "SIGKILL spawned screen -> re-placed and acked", count: "\(runs) kills",
            p50: ms(Double(summary.p50) / 1e6), p99: ms(Double(summary.p99) / 1e6),
            serverCPU: cpuKnown ? Format.micros(cpuSeconds * 1e9 / Double(runs)) : "-",
            note: "max \(ms(Double(summary.max) / 1e6)); medians from kill: PROCESS_EXITED \(median(exited)), new PROCESS_SPAWNED \(median(spawned)), its HANDSHAKE (re-Place sent) \(median(handshaken)), its ACK \(median(total)); screen_restarts \(after.screenRestarts), none given up, flows \(after.flows) before and after")
    }

    // MARK: - Hung host

    /// App `bench-echo` with `hosts + 1` screens and the watchdog on (`--hang-timeout`): `hosts`
    /// echo hosts (one `_latency-load` process) keep `window` outputs each in flight and time each
    /// to its Update; host `echo-<hosts>` (`_ack-host`) gets an injected output every 5 ms
    /// throughout. After `healthySeconds`, that host is SIGSTOPped: its screen keeps getting
    /// Updates it never acks, the watchdog pings it, no Pong comes, and `HOST_HUNG` disconnects it.
    /// Two rows: the others' latency before, and for the outputs sent from SIGSTOP to HOST_HUNG.
    static func hungHost(flowd: String, hosts: Int, window: Int, hangTimeout: Double, warmupSeconds: Double,
                         healthySeconds: Double) throws -> [TableRow] {
        let context = "hung-host"
        let server = try ServerUnderTest.flowd(
            executable: flowd, app: "bench-echo", arguments: ackArguments + ["--hang-timeout", "\(hangTimeout)"],
            environment: ["FLOWD_BENCH_SCREENS": "\(hosts + 1)"])
        let watcher = try EventWatcher(socket: server.socketPath, kinds: [.hostHung], context: context)
        let victim = try ChildProcess.flowbench(["_ack-host", "--socket", server.socketPath, "--kind", "echo-\(hosts)"])
        let victimScreen = UInt64(try victim.expect("connected").double("screen"))
        guard let victimConnection = try watcher.tree().connections.first(where: { $0.pid == victim.pid })?.id else {
            throw BenchError("\(context): the tree shows no connection of the stalled host (pid \(victim.pid))")
        }
        let load = try ChildProcess.flowbench([
            "_latency-load", "--socket", server.socketPath, "--connections", "\(hosts)", "--window", "\(window)",
        ])
        _ = try load.expect("ready")

        var inject = Flowd_V1_InjectOutput()
        inject.screenID = victimScreen
        inject.payload = .json(Data(FlowHost.pressJSON(0).utf8))
        /// Injects an output for the stalled host's screen every 5 ms until `deadline` (monotonic
        /// ns) or a HOST_HUNG event, which it returns.
        func injectUntil(_ deadline: UInt64) throws -> Flowd_V1_Event? {
            while cbr_now_ns() < deadline {
                if let status = load.exitCodeIfEnded() {
                    throw BenchError("\(context): the measuring hosts ended early (status \(status)); their error is above")
                }
                _ = try watcher.asking("injecting an output for screen \(victimScreen)") { try watcher.control.command(.injectOutput(inject)) }
                if let event = try watcher.event(timeoutMilliseconds: 5) { return event }
            }
            return nil
        }

        if let early = try injectUntil(cbr_now_ns() + UInt64(warmupSeconds * 1e9)) {
            throw BenchError("\(context): a host was found hung before any was stopped: \(early.text)")
        }
        let healthyStart = cbr_now_ns()
        let cpuHealthyStart = cbr_process_cpu_seconds(server.pid)
        if let early = try injectUntil(healthyStart + UInt64(healthySeconds * 1e9)) {
            throw BenchError("\(context): a host was found hung before any was stopped: \(early.text)")
        }
        let stallStart = cbr_now_ns()
        let cpuStallStart = cbr_process_cpu_seconds(server.pid)
        let stoppedAt = OS.wallClockNanos()
        victim.signal(SIGSTOP)
        defer { victim.signal(SIGKILL) }
        let limit = max(10 * hangTimeout, 5)
        guard let hung = try injectUntil(stallStart + UInt64(limit * 1e9)) else {
            throw BenchError("\(context): the stopped host was not found hung within \(limit) s (--hang-timeout \(hangTimeout))")
        }
        let stallEnd = cbr_now_ns()
        let cpuStallEnd = cbr_process_cpu_seconds(server.pid)
        guard hung.connectionID == victimConnection else {
            throw BenchError("\(context): the watchdog found a measuring host hung, not the stopped one: \(hung.text)")
        }
        // Let the outputs sent just before HOST_HUNG come back before the run stops.
        usleep(200_000)
        if let status = load.exitCodeIfEnded() {
            throw BenchError("\(context): the measuring hosts ended early (status \(status)); their error is above")
        }
        try load.writeLine("phases bounds=\(healthyStart),\(stallStart),\(stallEnd)")
        let healthy = try load.expect("result")
        let stalled = try load.expect("result")
        load.waitForExit()
        let stats = try watcher.stats()
        guard stats.hostsHung == 1 else { throw BenchError("\(context): stats show \(stats.hostsHung) hosts hung, expected 1") }

        func row(_ line: ResultLine, _ setting: String, cpu: (Double, Double)) throws -> TableRow {
            let (row, summary, _) = try phaseRow("hung-host", "\(hosts) echo hosts, window \(window): \(setting)", line, context: context)
            var withCPU = row
            if cpu.0 >= 0, cpu.1 >= 0 { withCPU.serverCPU = "\(Format.fixed((cpu.1 - cpu.0) * 1e9 / Double(summary.count), 0)) ns" }
            return withCPU
        }
        let healthyRow = try row(healthy, "all healthy", cpu: (cpuHealthyStart, cpuStallStart))
        var stalledRow = try row(stalled, "1 more host SIGSTOPped until HOST_HUNG", cpu: (cpuStallStart, cpuStallEnd))
        let before = try LatencySummary(healthy), during = try LatencySummary(stalled)
        let found = millis(stoppedAt, hung.timeUnixNanos) / 1000
        stalledRow.note += "; x\(Format.fixed(Double(during.p50) / Double(max(1, before.p50)), 2)) p50, x\(Format.fixed(Double(during.p99) / Double(max(1, before.p99)), 2)) p99 of healthy; SIGSTOP -> HOST_HUNG \(Format.fixed(found, 2)) s (--hang-timeout \(Format.fixed(hangTimeout, 2)) s; bound 1.75x = \(Format.fixed(1.75 * hangTimeout, 2)) s); hosts_hung \(stats.hostsHung)"
        return [healthyRow, stalledRow]
    }
}
