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

    @Option(help: ArgumentHelp(
        "CPU-bound processes (shell loops) running beside flowd and its hosts all along.",
        discussion: "docs/performance.md, \"Beside other programs\": the row with and without the unit's settings."))
    var neighbours: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "The nice value of every flowd thread (a unit's Nice=; -10 stands for CPUWeight=1000 against the default 100).",
        discussion: "Below 0 needs CAP_SYS_NICE.", valueName: "nice"))
    var daemonNice: Int?

    @Option(help: ArgumentHelp(
        "SCHED_RR at this priority (1-99), reset on fork, for every flowd thread (the unit's optional real-time policy).",
        discussion: "Needs CAP_SYS_NICE or RLIMIT_RTPRIO.", valueName: "priority"))
    var daemonRr: Int?

    func validate() throws {
        if let neighbours, !(0...64).contains(neighbours) { throw ValidationError("--neighbours must be between 0 and 64, got \(neighbours)") }
        if let daemonNice, !(-20...19).contains(daemonNice) { throw ValidationError("--daemon-nice must be between -20 and 19, got \(daemonNice)") }
        if let daemonRr, !(1...99).contains(daemonRr) { throw ValidationError("--daemon-rr must be between 1 and 99, got \(daemonRr)") }
        if daemonNice != nil, daemonRr != nil { throw ValidationError("give --daemon-nice or --daemon-rr, not both") }
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
        let scheduling: DaemonScheduling = if let daemonNice { .nice(daemonNice) } else if let daemonRr { .roundRobin(priority: daemonRr) } else { .unchanged }
        Report.progress("flood, \(settings.floodHosts) quiet hosts")
        Report.emit(try Self.rows(flowd: options.flowdPath, settings: settings, neighbours: neighbours ?? 0, scheduling: scheduling), quick: options.quick)
    }

    /// The row without the flood, then the row during it.
    static func rows(flowd: String, settings: BenchSettings, neighbours: Int = 0, scheduling: DaemonScheduling = .unchanged) throws -> [TableRow] {
        try Benchmarks.flood(
            flowd: flowd, hosts: settings.floodHosts, window: settings.hungWindow, warmupSeconds: settings.hungWarmup,
            seconds: settings.floodSeconds, neighbours: neighbours, scheduling: scheduling)
    }
}
