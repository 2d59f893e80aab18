import ArgumentParser

/// `flowbench screen-restart`: time from SIGKILL of a spawned screen's process to its screen re-placed and acked.
struct ScreenRestart: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screen-restart",
        abstract: "Time from SIGKILL of a spawned screen process to the screen re-placed and acked by the new one (daemon events).")

    @OptionGroup var options: BenchOptions

    @Option(help: "Kills to time (the restart policy allows exactly as many).")
    var runs: Int?

    func run() throws {
        let runs = runs ?? options.settings.restartRuns
        guard (1...1000).contains(runs) else { throw ValidationError("--runs must be between 1 and 1000, got \(runs)") }
        Report.progress("screen-restart, \(runs) kills")
        Report.emit([try Benchmarks.screenRestart(flowd: options.flowdPath, runs: runs)], quick: options.quick)
    }
}
