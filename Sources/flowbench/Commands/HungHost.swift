import ArgumentParser

/// `flowbench hung-host`: the other hosts' output -> update latency with all hosts healthy, then
/// while one more host is stopped (SIGSTOP) until the watchdog finds it hung.
struct HungHost: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hung-host",
        abstract: "Latency of echo hosts through flows, healthy and while one more host is SIGSTOPped until HOST_HUNG.")

    @OptionGroup var options: BenchOptions

    @Option(help: "Measuring echo hosts (a stopped host comes on top).")
    var hosts: Int?

    @Option(help: "Outputs in flight per measuring host.")
    var window: Int?

    @Option(help: ArgumentHelp("flowd's --hang-timeout: seconds a pinged host has to answer.", valueName: "seconds"))
    var hangTimeout: Double?

    @Option(help: ArgumentHelp("Seconds measured with every host healthy.", valueName: "seconds"))
    var healthySeconds: Double?

    func validate() throws {
        if let hosts, !(1...9_999).contains(hosts) { throw ValidationError("--hosts must be between 1 and 9999, got \(hosts)") }
        if let window, window < 1 { throw ValidationError("--window must be at least 1, got \(window)") }
        if let hangTimeout, !(hangTimeout > 0 && hangTimeout < 600) {
            throw ValidationError("--hang-timeout must be above 0 and below 600 (the bench's --ack-timeout), got \(hangTimeout)")
        }
        if let healthySeconds, !(healthySeconds > 0) { throw ValidationError("--healthy-seconds must be above 0, got \(healthySeconds)") }
    }

    func run() throws {
        OS.raiseOpenFileLimit()
        var settings = options.settings
        settings.hungHosts = hosts ?? settings.hungHosts
        settings.hungWindow = window ?? settings.hungWindow
        settings.hangTimeout = hangTimeout ?? settings.hangTimeout
        settings.hungHealthySeconds = healthySeconds ?? settings.hungHealthySeconds
        Report.progress("hung-host, \(settings.hungHosts) hosts")
        Report.emit(try Self.rows(flowd: options.flowdPath, settings: settings), quick: options.quick)
    }

    /// The healthy row, then the row while one host is stopped.
    static func rows(flowd: String, settings: BenchSettings) throws -> [TableRow] {
        try Benchmarks.hungHost(
            flowd: flowd, hosts: settings.hungHosts, window: settings.hungWindow, hangTimeout: settings.hangTimeout,
            warmupSeconds: settings.hungWarmup, healthySeconds: settings.hungHealthySeconds)
    }
}
