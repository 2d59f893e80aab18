import ArgumentParser
import Foundation

/// `flowbench flowd-relay`: latency host A -> flowd -> host B -> flowd -> host A through a flow, next to the C relay
/// and the D-Bus call (`dbus-call`).
struct FlowdRelay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowd-relay",
        abstract: "Round trips through a flow (app bench-relay, two hosts) next to the C relay and a D-Bus call.",
        discussion: """
            The run that judges the relay has every process on one CPU: taskset -c N flowbench flowd-relay \
            (docs/performance.md, "Targets"). --json prints the ratios on one line.
            """)

    @OptionGroup var options: BenchOptions

    @Flag(help: ArgumentHelp(
        "Print one JSON line on stdout instead of the table (the table goes to stderr).",
        discussion: "The ratios to baseline-relay (p50, p99, daemon CPU), journaling and --no-state, the journal's own cost, the ratios to dbus-call, the CPUs allowed and the load average."))
    var json = false

    func run() throws {
        let settings = options.settings
        Report.progress("baseline-relay")
        let (baselineRow, baseline) = try Benchmarks.baselineRelay(settings: settings)
        Report.progress("dbus-call")
        let (dbusRow, dbus) = try Benchmarks.dbusCall(settings: settings)
        Report.progress("flowd-relay")
        let journaled = try Benchmarks.flowdRelay(flowd: options.flowdPath, settings: settings, baseline: baseline, dbus: dbus)
        Report.progress("flowd-relay --no-state")
        let unjournaled = try Benchmarks.flowdRelay(flowd: options.flowdPath, settings: settings, baseline: baseline, journaling: false)
        let rows = [baselineRow, dbusRow, journaled.row, unjournaled.row]
        guard json else {
            Report.emit(rows, quick: options.quick)
            return
        }
        Report.emitToStandardError(rows, quick: options.quick)
        print(RelayRatios(baseline: baseline, journaled: journaled.measured, unjournaled: unjournaled.measured, dbus: dbus).jsonLine)
    }
}
