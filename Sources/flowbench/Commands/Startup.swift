import ArgumentParser

/// `flowbench startup`: time from launching flowd to its first accepted connection.
struct Startup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "startup", abstract: "Time from launching flowd to accepting its first connection.")

    @OptionGroup var options: BenchOptions

    @Option(help: "Launches to time.")
    var runs: Int?

    func run() throws {
        let runs = runs ?? options.settings.startupRuns
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1, got \(runs)") }
        Report.progress("startup, \(runs) runs")
        Report.emit([try Benchmarks.startup(flowd: options.flowdPath, runs: runs)], quick: options.quick)
    }
}
