import ArgumentParser

/// `flowbench flowd-relay`: latency host A -> flowd -> host B -> flowd -> host A through a flow, next to the C relay.
struct FlowdRelay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowd-relay",
        abstract: "Round trips through a flow (app bench-relay, two hosts) next to the C relay.")

    @OptionGroup var options: BenchOptions

    func run() throws {
        let settings = options.settings
        Report.progress("baseline-relay")
        let (baselineRow, baseline) = try Benchmarks.baselineRelay(settings: settings)
        Report.progress("flowd-relay")
        let row = try Benchmarks.flowdRelay(flowd: options.flowdPath, settings: settings, baseline: baseline)
        Report.progress("flowd-relay --no-state")
        let unjournaled = try Benchmarks.flowdRelay(flowd: options.flowdPath, settings: settings, baseline: baseline, journaling: false)
        Report.emit([baselineRow, row, unjournaled], quick: options.quick)
    }
}
