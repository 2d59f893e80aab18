import ArgumentParser

/// `flowbench flowd-echo`: outputs per second through a flow (each updates its own screen), next to the C echo.
struct FlowdEcho: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowd-echo",
        abstract: "Throughput of outputs through a flow (app bench-echo, one screen per host) next to the C echo.")

    @OptionGroup var options: BenchOptions

    @Option(help: "Screen hosts, each with its own screen and a window of outputs in flight.")
    var clients: Int = 256

    @Option(help: "Outputs in flight per host.")
    var window: Int = Benchmarks.defaultWindow

    func validate() throws {
        guard (1...10_000).contains(clients) else { throw ValidationError("--clients must be between 1 and 10000, got \(clients)") }
        guard window >= 1 else { throw ValidationError("--window must be at least 1, got \(window)") }
    }

    func run() throws {
        OS.raiseOpenFileLimit()
        let settings = options.settings
        Report.progress("baseline-echo, \(clients) clients")
        let baseline = try Benchmarks.baselineEcho(clients: clients, window: window, settings: settings)
        Report.progress("flowd-echo, \(clients) hosts")
        let row = try Benchmarks.flowdEcho(
            flowd: options.flowdPath, clients: clients, window: window, settings: settings,
            baselineRate: Benchmarks.rateValue(baseline))
        Report.emit([baseline, row], quick: options.quick)
    }
}
