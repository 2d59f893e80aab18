import ArgumentParser
import Foundation

/// Options every benchmark subcommand takes.
struct BenchOptions: ParsableArguments {
    @Flag(help: "Small counts and short runs: finishes in seconds (for tests), numbers are rough.")
    var quick = false

    @Flag(help: ArgumentHelp(
        "Pin every process to one CPU: the server under test on the last, flowbench and its load on the first.",
        discussion: "Needs 2 CPUs or more (docs/performance.md, \"A pinned run\")."))
    var pin = false

    @Option(help: ArgumentHelp("The flowd executable to measure.", discussion: "Default: flowd next to flowbench.", valueName: "path"))
    var flowd: String?

    /// Pins this process before the command runs when `--pin` is given (its children inherit the
    /// CPU; `Pinning` moves the servers to theirs).
    func validate() throws {
        guard pin else { return }
        do { try Pinning.pinLoad() } catch { throw ValidationError("\(error)") }
    }

    /// The flowd path to run: `--flowd`, else the `flowd` beside this executable.
    var flowdPath: String {
        flowd ?? URL(fileURLWithPath: OS.executablePath).deletingLastPathComponent().appendingPathComponent("flowd").path
    }

    /// Counts and durations for a full or a quick run.
    var settings: BenchSettings { quick ? .quick : .full }

    /// The comma-separated positive integers of `option`'s `text` (`--sizes 1000,10000`).
    static func positiveIntegers(_ text: String, option: String) throws -> [Int] {
        try text.split(separator: ",").map { part -> Int in
            guard let value = Int(part), value >= 1 else { throw ValidationError("\(option) takes positive integers, got \(part)") }
            return value
        }
    }
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
    /// "Push 999" presses of the live-screens row (999 screens each).
    var livePresses: Int
    /// Spawned screens timed by `spawn-startup`.
    var spawnRuns: Int
    /// Kills of a spawned screen timed by `screen-restart`.
    var restartRuns: Int
    /// `hung-host`: measuring hosts, their window, the daemon's `--hang-timeout` (seconds),
    /// and the seconds of warm-up and of the healthy phase before one more host is stopped.
    var hungHosts: Int
    var hungWindow: Int
    var hangTimeout: Double
    var hungWarmup: Double
    var hungHealthySeconds: Double
    /// `flood`: quiet hosts (with `hungWindow` and `hungWarmup`), and the seconds of each phase.
    var floodHosts: Int = 16
    var floodSeconds: Double = 2
    /// Tree sizes (screens) of `tree-cost`.
    var treeSizes: [Int]
    /// Stack depths unwound by `tree-cost`.
    var unwindDepths: [Int]
    /// Operations of each kind timed per tree size.
    var treeOperations: Int
    /// Journal sizes (inputs) of `restore` in `all` (`flowbench restore` adds 10^6 to the full run).
    var restoreSizes: [Int]
    /// Starts of flowd per journal size.
    var restoreRuns: Int

    /// The numbers for the report: >= 200,000 round trips, 2 s per throughput point, 10,000 idle hosts,
    /// 100,900 live screens, trees up to 10^6 nodes, 20 screen restarts, 16 hosts beside a hung one,
    /// journals up to 10^5 inputs.
    static let full = BenchSettings(
        latencyCount: 200_000, latencyWarmup: 20_000, echoClients: [1, 16, 256, 1000],
        echoWarmup: 0.5, echoSeconds: 2, idleCount: 10_000, startupRuns: 5,
        livePresses: 101, spawnRuns: 7, restartRuns: 20,
        hungHosts: 16, hungWindow: 1, hangTimeout: 1, hungWarmup: 0.5, hungHealthySeconds: 2,
        treeSizes: [1_000, 10_000, 100_000, 1_000_000],
        unwindDepths: [10, 100, 1_000, 10_000], treeOperations: 2_000,
        restoreSizes: [1_000, 10_000, 100_000], restoreRuns: 5)

    /// A few seconds in all; for the test suite.
    static let quick = BenchSettings(
        latencyCount: 2_000, latencyWarmup: 200, echoClients: [1, 256],
        echoWarmup: 0.05, echoSeconds: 0.2, idleCount: 200, startupRuns: 2,
        livePresses: 2, spawnRuns: 2, restartRuns: 3,
        hungHosts: 4, hungWindow: 1, hangTimeout: 0.5, hungWarmup: 0.1, hungHealthySeconds: 0.3,
        floodHosts: 4, floodSeconds: 0.3,
        treeSizes: [1_000, 10_000], unwindDepths: [10, 100, 1_000], treeOperations: 200,
        restoreSizes: [1_000], restoreRuns: 2)
}
