import ArgumentParser

/// `flowbench flowd-relay`: latency host A -> flowd -> host B -> flowd -> host A through a flow, next to the C relay
/// and the D-Bus call (`dbus-call`).
struct FlowdRelay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowd-relay",
        abstract: "Round trips through a flow (app bench-relay, two hosts) next to the C relay and a D-Bus call.")

    @OptionGroup var options: BenchOptions

    func run() throws {
        let settings = options.settings
        Report.progress("baseline-relay")
        let (baselineRow, baseline) = try Benchmarks.baselineRelay(settings: settings)
        Report.progress("dbus-call")
        let (dbusRow, dbus) = try Benchmarks.dbusCall(settings: settings)
        Report.progress("flowd-relay")
        let row = try Benchmarks.flowdRelay(flowd: options.flowdPath, settings: settings, baseline: baseline, dbus: dbus)
        Report.progress("flowd-relay --no-state")
        let unjournaled = try Benchmarks.flowdRelay(flowd: options.flowdPath, settings: settings, baseline: baseline, journaling: false)
        Report.emit([baselineRow, dbusRow, row, unjournaled], quick: options.quick)
    }
}
