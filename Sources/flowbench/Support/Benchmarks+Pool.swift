import CBenchRelay
import FlowControl
import FlowWire
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension Benchmarks {
    /// How the `bench-spawned` screen of app `bench-spawn` gets its host in a `spawn-pool` row.
    enum PoolMode {
        /// An attached host (`_ack-host`) that provides the kind and stays connected.
        case attached
        /// A new `flowbench _spawned` process per screen (no pool).
        case spawned
        /// A pooled `flowbench _spawned` process, the pool of this size warm before each screen.
        case pooled(Int)
    }

    /// The `spawn-pool` rows, in one run: the daemon-stamped time from the `PLACE` event of the
    /// `bench-spawned` screen to its first `ACK`, with an attached host, with a spawn per screen and
    /// with a warm pool; then what idle pooled processes cost the daemon.
    static func spawnPoolRows(flowd: String, runs: Int, idlePool: Int) throws -> [TableRow] {
        let attached = try placeToAck(flowd: flowd, mode: .attached, runs: runs)
        let spawned = try placeToAck(flowd: flowd, mode: .spawned, runs: runs)
        let pooled = try placeToAck(flowd: flowd, mode: .pooled(1), runs: runs)
        func row(_ setting: String, _ millis: [Double], _ extra: String) -> TableRow {
            TableRow(
                benchmark: "spawn-pool", setting: setting, count: "\(millis.count) runs",
                p50: "\(Format.fixed(median(millis), 2)) ms", p99: "\(Format.fixed(millis.last!, 2)) ms",
                note: "min \(Format.fixed(millis.first!, 2)) ms; \(extra)")
        }
        let ratio = median(pooled) / median(attached)
        let met = ratio <= 2 ? "met" : "MISSED"
        return [
            row("attached host: Place -> first Ack", attached, "daemon events PLACE -> ACK of the bench-spawned screen (_ack-host)"),
            row("spawned, no pool: Place -> first Ack", spawned,
                "x\(Format.fixed(median(spawned) / median(attached), 1)) of attached (exec, Swift start-up, Hello with token, Place, Ack)"),
            row("spawned, warm pool of 1: Place -> first Ack", pooled,
                "x\(Format.fixed(ratio, 2)) of attached (target <= x2 \(met)), x\(Format.fixed(median(spawned) / median(pooled), 1)) faster than no pool; the pool refilled and ready before each; every mode idles \(settleMicroseconds / 1_000) ms before each screen"),
            try idleCost(flowd: flowd, size: idlePool),
        ]
    }

    /// Idle pooled processes for the cost row: 16 (4 with `--quick`).
    static func idlePoolSize(quick: Bool) -> Int { quick ? 4 : 16 }

    private static func median(_ sorted: [Double]) -> Double { sorted[sorted.count / 2] }

    /// The pause before each screen, in every mode: long enough for the CPUs to go idle.
    static let settleMicroseconds: UInt32 = 5_000

    /// `runs` times: press "Spawn" on the home screen, time `PLACE` -> first `ACK` of the new screen from
    /// the daemon's events, press "Dismiss" and wait until it is gone (and, spawned, its process
    /// exited; pooled, the pool is full and ready again). Sorted milliseconds.
    static func placeToAck(flowd: String, mode: PoolMode, runs: Int) throws -> [Double] {
        let context = "spawn-pool"
        var arguments = flowdArguments
        var environment: [String: String] = [:]
        switch mode {
        case .attached: break
        case .spawned: environment["FLOWD_BENCH_SPAWN"] = OS.executablePath
        case .pooled(let size):
            environment["FLOWD_BENCH_SPAWN"] = OS.executablePath
            arguments += ["--spawn-pool", "\(size)"]
        }
        let server = try ServerUnderTest.flowd(executable: flowd, app: "bench-spawn", arguments: arguments, environment: environment)
        let debug: FlowClient
        do {
            debug = try FlowClient.connect(path: server.socketPath, role: .debug, name: "flowbench")
            try debug.subscribe(kinds: [.place, .ack, .processExited])
        } catch {
            throw BenchError("\(context): debug connection to flowd failed: \(error)")
        }
        var attachedHost: ChildProcess?
        defer { attachedHost?.stop() }
        if case .attached = mode {
            attachedHost = try ChildProcess.flowbench(["_ack-host", "--socket", server.socketPath, "--kind", "bench-spawned"])
            try waitUntil(debug, context: "\(context): the attached bench-spawned host did not connect") { tree in
                tree.connections.contains { $0.provides.contains("bench-spawned") }
            }
        }
        let (fd, home) = try FlowHost.connect(socket: server.socketPath, kind: "bench-home", context: context)
        defer { close(fd) }
        let spawn = FlowHost.outputFrame(screen: home, button: 0)
        let dismiss = FlowHost.outputFrame(screen: home, button: 1)
        func nextEvent() throws -> Flowd_V1_Event { try Benchmarks.nextEvent(from: debug, context: context) }
        var millis: [Double] = []
        for _ in 0..<runs {
            if case .pooled(let size) = mode {
                try waitUntil(debug, context: "\(context): the pool did not fill") { $0.stats.pooledReady >= UInt64(size) }
            }
            // Every mode starts from the same quiet machine: back to back, the attached host's CPUs
            // were still awake from the last screen while the pooled one's had idled through the
            // refill, and waking an idle vCPU alone cost this VM ~0.1 ms (docs/performance.md).
            usleep(settleMicroseconds)
            try FlowHost.write(spawn, to: fd, context: context)
            var placedAt: Int64 = 0
            var screen: UInt64 = 0
            var firstAck: UInt64 = 0
            while firstAck == 0 {
                let event = try nextEvent()
                if event.kind == .place, event.name == "bench-spawned" {
                    placedAt = event.timeUnixNanos
                    screen = event.screenID
                } else if event.kind == .ack, screen != 0, event.screenID == screen {
                    millis.append(Double(event.timeUnixNanos - placedAt) / 1e6)
                    firstAck = event.serial
                }
            }
            try FlowHost.write(dismiss, to: fd, context: context)
            // Gone: its Dismiss acknowledged, and a spawned process reaped.
            var dismissed = false
            var exited = false
            if case .attached = mode { exited = true }
            while !(dismissed && exited) {
                let event = try nextEvent()
                if event.kind == .ack, event.screenID == screen, event.serial > firstAck { dismissed = true }
                if event.kind == .processExited, event.screenID == screen { exited = true }
            }
        }
        return millis.sorted()
    }

    /// Asks for the tree until `done` holds (each request is a round trip to the daemon), for 30 s at most.
    private static func waitUntil(_ debug: FlowClient, context: String, _ done: (Flowd_V1_Tree) -> Bool) throws {
        let deadline = cbr_now_ns() + 30_000_000_000
        while cbr_now_ns() < deadline {
            let tree: Flowd_V1_Tree
            do {
                tree = try debug.tree()
            } catch {
                throw BenchError("\(context): \(error)")
            }
            if done(tree) { return }
            usleep(500)
        }
        throw BenchError("\(context) within 30 s")
    }

    /// What `size` idle pooled processes cost the daemon: flowd's VmRSS and open descriptors with a pool
    /// of `size + 1` full and handshaken, minus the same with a pool of 1, per pooled process. The base has
    /// one pooled process so that the spawn and handshake code is paged in on both sides of the difference.
    static func idleCost(flowd: String, size: Int) throws -> TableRow {
        let context = "spawn-pool idle cost"
        func measure(pool: Int) throws -> (rss: UInt64, descriptors: UInt64, childRSS: UInt64) {
            let server = try ServerUnderTest.flowd(
                executable: flowd, app: "bench-spawn", arguments: flowdArguments + ["--spawn-pool", "\(pool)"],
                environment: ["FLOWD_BENCH_SPAWN": OS.executablePath])
            let debug: FlowClient
            do {
                debug = try FlowClient.connect(path: server.socketPath, role: .debug, name: "flowbench")
            } catch {
                throw BenchError("\(context): debug connection to flowd failed: \(error)")
            }
            defer { debug.close() }
            var tree = Flowd_V1_Tree()
            try waitUntil(debug, context: "\(context): the pool of \(pool) did not fill") {
                tree = $0
                return $0.stats.pooledReady == UInt64(pool)
            }
            // The children's own memory, for the note (the machine's cost, not the daemon's).
            var childRSS: UInt64 = 0
            for connection in tree.connections where !connection.pooledKind.isEmpty {
                childRSS += (try? OS.residentBytes(pid: connection.pid)) ?? 0
            }
            return (try OS.residentBytes(pid: server.pid), tree.stats.openDescriptors, childRSS)
        }
        let empty = try measure(pool: 1)
        let full = try measure(pool: size + 1)
        let perRSS = (Double(full.rss) - Double(empty.rss)) / Double(size)
        let perFD = (Double(full.descriptors) - Double(empty.descriptors)) / Double(size)
        return TableRow(
            benchmark: "spawn-pool", setting: "\(size) idle pooled processes: daemon cost each", count: "\(size) processes",
            memory: "\(Format.bytes(perRSS))/process",
            note: "\(Format.fixed(perFD, 1)) descriptors/process in flowd; flowd VmRSS \(Format.bytes(Double(empty.rss))) with a pool of 1, \(Format.bytes(Double(full.rss))) with \(size + 1); each idle _spawned process holds \(Format.bytes(Double(full.childRSS) / Double(size + 1))) VmRSS of its own")
    }
}
