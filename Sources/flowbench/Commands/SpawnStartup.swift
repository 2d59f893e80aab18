import ArgumentParser

/// `flowbench spawn-startup`: time from a spawn factory call to the spawned screen's first Ack.
struct SpawnStartup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spawn-startup",
        abstract: "Time from flowd spawning a screen process to that screen's first Ack (daemon events).")

    @OptionGroup var options: BenchOptions

    @Option(help: "Spawned screens to time.")
    var runs: Int?

    func run() throws {
        let runs = runs ?? options.settings.spawnRuns
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1, got \(runs)") }
        Report.progress("spawn-startup, \(runs) runs")
        Report.emit([try Benchmarks.spawnStartup(flowd: options.flowdPath, runs: runs)], quick: options.quick)
    }
}
