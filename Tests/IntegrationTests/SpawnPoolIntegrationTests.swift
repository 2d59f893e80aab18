import FlowWire
import FlowdTestSupport
import Foundation
import Testing

/// Warm pools from the outside: the real flowd keeps real screen processes (`flowbench _spawned`)
/// handshaken and idle, a screen goes to one, and a stop ends them all (docs/daemon.md, "Warm pools").
@Suite("warm pools (socket level)", .serialized)
struct SpawnPoolIntegrationTests {
    /// App `bench-spawn` (an attached home screen; its button 0 shows a spawned screen, 1 dismisses
    /// it) with its spawned kind run as `flowbench _spawned` and a pool of `size`.
    static func daemon(pool size: Int) throws -> DaemonProcess {
        try DaemonProcess(
            arguments: ["--app", "bench-spawn", "--stay-up", "--no-state", "--spawn-pool", "\(size)"],
            environment: ["FLOWD_BENCH_SPAWN": productsDirectory.appendingPathComponent("flowbench").path])
    }

    @Test func aScreenGoesToAPooledProcessAndAStopEndsEveryPooledProcess() throws {
        let daemon = try Self.daemon(pool: 2)
        let debug = try RawClient(path: daemon.socketPath)
        try debug.handshake(role: .debug, name: "pool-test")
        let warm = try debug.stats { $0.pooledReady == 2 }
        #expect(warm.pooledReady == 2 && warm.pooledStarting == 0 && warm.childProcesses == 2, "\(warm)")
        let tree = try ProductRun.run("flowctl", ["tree", "--socket", daemon.socketPath])
        #expect(tree.stdout.components(separatedBy: "(pooled for bench-spawned)").count - 1 == 2, "\(tree.stdout)")

        let home = try RawClient(path: daemon.socketPath)
        try home.handshake(provides: ["bench-home"])
        let homePlace = try #require(try home.settle().compactMap(\.place).first)
        _ = try home.press(0, on: homePlace.screenID)
        // The pooled process acknowledges its Place: no acks left pending, one hit, the pool refilled.
        let used = try debug.stats { $0.screens == 2 && $0.pendingAcks == 0 && $0.pooledReady == 2 }
        #expect(used.screens == 2 && used.pendingAcks == 0, "\(used)")
        #expect(used.poolHits == 1 && used.poolMisses == 0)
        #expect(used.pooledReady == 2 && used.childProcesses == 3, "two idle and the one showing the screen")
        #expect(daemon.logText.contains("screen goes to a pooled process"))

        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        let log = daemon.logText
        let spawned = log.components(separatedBy: "spawned a pooled screen process").count - 1
        #expect(spawned == 3, "two at start and one refill:\n\(log)")
        #expect(log.components(separatedBy: "screen process exited").count - 1 == spawned, "every pooled process was stopped and reaped:\n\(log)")
    }

    @Test(arguments: [
        (["--app", "tutorial", "--spawn-screens", "false", "--spawn-pool=-1"], "--spawn-pool must be a whole number of processes from 0 to 64, got '-1'"),
        (["--app", "tutorial", "--spawn-screens", "false", "--spawn-pool", "65"], "--spawn-pool must be a whole number of processes from 0 to 64, got '65'"),
        (["--app", "tutorial", "--spawn-screens", "false", "--spawn-pool", "two"], "--spawn-pool must be a whole number of processes from 0 to 64, got 'two'"),
        (["--app", "tutorial", "--spawn-pool", "2"], "--spawn-pool: app tutorial spawns no screens (every kind is attached), so there is nothing to pool"),
    ])
    func badPoolArgumentsSayWhatIsWrong(arguments: [String], message: String) throws {
        let run = try ProductRun.run("flowd", ["--no-state", "--socket", makeTemporaryDirectory() + "/flowd.sock"] + arguments)
        #expect(run.status == 64)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }
}
