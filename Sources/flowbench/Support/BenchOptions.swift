import ArgumentParser
import Foundation

/// Options every benchmark subcommand takes.
struct BenchOptions: ParsableArguments {
    @Flag(help: "Small counts and short runs: finishes in seconds (for tests), numbers are rough.")
    var quick = false

    @Option(help: ArgumentHelp("The flowd executable to measure.", discussion: "Default: flowd next to flowbench.", valueName: "path"))
    var flowd: String?

    /// The flowd path to run: `--flowd`, else the `flowd` beside this executable.
    var flowdPath: String {
        flowd ?? URL(fileURLWithPath: OS.executablePath).deletingLastPathComponent().appendingPathComponent("flowd").path
    }

    /// Counts and durations for a full or a quick run.
    var settings: BenchSettings { quick ? .quick : .full }
}

/// How much each benchmark does.
struct BenchSettings {
    /// Round trips measured per latency run (after the warm-up).
    var latencyCount: Int
    /// Round trips before measuring.
    var latencyWarmup: Int
    /// Client counts of the echo throughput runs (`all`).
    var echoClients: [Int]
    /// Seconds of load before an echo measurement starts.
    var echoWarmup: Double
    /// Seconds an echo run is measured.
    var echoSeconds: Double
    /// Idle connections held against the server.
    var idleCount: Int
    /// flowd launches timed by `startup`.
    var startupRuns: Int

    /// The numbers for the report: >= 200,000 round trips, 2 s per throughput point, 10,000 idle hosts.
    static let full = BenchSettings(
        latencyCount: 200_000, latencyWarmup: 20_000, echoClients: [1, 16, 256, 1000],
        echoWarmup: 0.5, echoSeconds: 2, idleCount: 10_000, startupRuns: 5)

    /// A few seconds in all; for the test suite.
    static let quick = BenchSettings(
        latencyCount: 2_000, latencyWarmup: 200, echoClients: [1, 256],
        echoWarmup: 0.05, echoSeconds: 0.2, idleCount: 200, startupRuns: 2)
}
