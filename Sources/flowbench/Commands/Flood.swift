import ArgumentParser

/// `flowbench flood`: quiet echo hosts' output -> update latency alone, then while one more host
/// floods outputs as fast as it can.
struct Flood: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flood", abstract: "Latency of quiet echo hosts through flows, alone and while one more host floods outputs.")

    @OptionGroup var options: BenchOptions

    @Option(help: "Quiet (measuring) echo hosts; the flooding host comes on top.")
    var hosts: Int?

    @Option(help: "Outputs in flight per quiet host.")
    var window: Int?

    @Option(help: ArgumentHelp("Seconds measured in each phase (alone, flooded).", valueName: "seconds"))
    var seconds: Double?

    func validate() throws {
        if let hosts, !(1...9_999).contains(hosts) { throw ValidationError("--hosts must be between 1 and 9999, got \(hosts)") }
        if let window, window < 1 { throw ValidationError("--window must be at least 1, got \(window)") }
        if let seconds, !(seconds > 0) { throw ValidationError("--seconds must be above 0, got \(seconds)") }
    }

    func run() throws {
        OS.raiseOpenFileLimit()
        var settings = options.settings
        settings.floodHosts = hosts ?? settings.floodHosts
        settings.hungWindow = window ?? settings.hungWindow
        settings.floodSeconds = seconds ?? settings.floodSeconds
        Report.progress("flood, \(settings.floodHosts) quiet hosts")
        Report.emit(try Self.rows(flowd: options.flowdPath, settings: settings), quick: options.quick)
    }

    /// The row without the flood, then the row during it.
    static func rows(flowd: String, settings: BenchSettings) throws -> [TableRow] {
        try Benchmarks.flood(
            flowd: flowd, hosts: settings.floodHosts, window: settings.hungWindow, warmupSeconds: settings.hungWarmup,
            seconds: settings.floodSeconds)
    }
}
