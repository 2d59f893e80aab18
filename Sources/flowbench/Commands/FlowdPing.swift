import ArgumentParser

/// `flowbench flowd-ping`: Ping/Pong latency and throughput through a real flowd, next to the baseline.
struct FlowdPing: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowd-ping",
        abstract: "Ping/Pong through flowd (no flows yet) next to the C baseline: latency, then throughput.")

    @OptionGroup var options: BenchOptions

    @Option(help: "Clients of the throughput run, each keeping a window of Pings in flight.")
    var clients: Int = 16

    @Option(help: "Pings in flight per client.")
    var window: Int = Benchmarks.defaultWindow

    func run() throws {
        OS.raiseOpenFileLimit()
        let settings = options.settings
        Report.progress("baseline-pingpong")
        let (baselineRow, baseline) = try Benchmarks.baselinePingPong(settings: settings)
        Report.progress("flowd-ping")
        let pingRow = try Benchmarks.flowdPing(flowd: options.flowdPath, settings: settings, baseline: baseline)
        Report.progress("flowd-ping-echo, \(clients) clients")
        let echoRow = try Benchmarks.flowdPingEcho(flowd: options.flowdPath, clients: clients, window: window, settings: settings)
        Report.emit([baselineRow, pingRow, echoRow], quick: options.quick)
    }
}
