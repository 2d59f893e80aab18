import ArgumentParser

/// `flowbench baseline-pingpong`: round trips client -> C libuv echo server -> client.
struct BaselinePingPong: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline-pingpong", abstract: "Round-trip latency through the C libuv echo server (2 processes).")

    @OptionGroup var options: BenchOptions

    func run() throws {
        Report.progress("baseline-pingpong")
        let (row, _) = try Benchmarks.baselinePingPong(settings: options.settings)
        Report.emit([row], quick: options.quick)
    }
}
