import ArgumentParser

/// `flowbench spawn-pool`: a spawned screen's Place -> first Ack with and without a warm pool, next to an
/// attached screen's, and what idle pooled processes cost the daemon.
struct SpawnPoolBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spawn-pool",
        abstract: "Place -> first Ack of a screen: attached, spawned, and from a warm pool; the daemon's cost per idle pooled process.")

    @OptionGroup var options: BenchOptions

    @Option(help: "Screens to time in each of the three ways.")
    var runs: Int?

    @Option(help: "Idle pooled processes for the cost row.")
    var idle: Int?

    func run() throws {
        let runs = runs ?? options.settings.spawnRuns * 3
        let idle = idle ?? Benchmarks.idlePoolSize(quick: options.quick)
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1, got \(runs)") }
        guard (1...63).contains(idle) else { throw ValidationError("--idle must be from 1 to 63 (one more than it is pooled, and flowd's largest pool is 64), got \(idle)") }
        Report.progress("spawn-pool, \(runs) runs each, \(idle) idle")
        Report.emit(try Benchmarks.spawnPoolRows(flowd: options.flowdPath, runs: runs, idlePool: idle), quick: options.quick)
    }
}
