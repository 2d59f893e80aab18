import ArgumentParser

/// `flowbench baseline-relay`: round trips host A -> relay -> host B -> relay -> host A.
struct BaselineRelay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline-relay", abstract: "Round-trip latency A -> C relay -> B -> C relay -> A (3 processes).")

    @OptionGroup var options: BenchOptions

    func run() throws {
        Report.progress("baseline-relay")
        let (row, _) = try Benchmarks.baselineRelay(settings: options.settings)
        Report.emit([row], quick: options.quick)
    }
}
