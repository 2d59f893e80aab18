import ArgumentParser
import Foundation

/// `flowbench restore`: flowd's start on a journal of 10^3..10^6 inputs, to the restored tree and to
/// the first screen re-placed (docs/restore.md).
struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Time for flowd to restore a journal of 10^3..10^6 inputs: to the restored tree and to the first re-placed screen.",
        discussion: """
            Each journal is a session of app deep-stack (never compacted: its flow does not handle links), or a history \
            of the demo launcher (compacted as flowd compacts it), written by flowd's own core (the embedded daemon) in a \
            scratch directory; flowd --state is then started on a fresh copy of it several times (medians).
            """)

    @OptionGroup var options: BenchOptions

    @Option(help: "Journal sizes in inputs, comma-separated (default 1000,10000,100000,1000000; --quick: 1000).")
    var inputs: String?

    @Option(help: ArgumentHelp(
        "Histories of the demo launcher in inputs, comma-separated (default 100000,1000000,10000000; --quick: 10000).",
        discussion: "Sub-apps opened and closed from the menu, the journal compacted as flowd does: its size and the restore depend on what is open, not on the history (docs/restore.md, Long sessions). 0: none."))
    var launcher: String?

    @Option(help: "Starts per size, at most 3 from 10^6 inputs (default 5; --quick: 2).")
    var runs: Int?

    @Option(help: ArgumentHelp(
        "Keep the journals in this directory (deep-stack-N.journal) and reuse them in the next run.",
        discussion: "Writing 10^6 inputs takes about a minute. Run flowd on a kept journal by hand to profile a restore.",
        valueName: "directory"))
    var journals: String?

    func run() throws {
        let settings = options.settings
        let sizes = try inputs.map { try BenchOptions.positiveIntegers($0, option: "--inputs") } ?? settings.restoreSizes + (options.quick ? [] : [1_000_000])
        let launcherSizes = try launcher.map { $0 == "0" ? [] : try BenchOptions.positiveIntegers($0, option: "--launcher") }
            ?? (options.quick ? [10_000] : [100_000, 1_000_000, 10_000_000])
        let runs = runs ?? settings.restoreRuns
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1, got \(runs)") }
        if let journals {
            // Made if missing, as a user who names a new directory expects.
            do {
                try FileManager.default.createDirectory(atPath: journals, withIntermediateDirectories: true)
            } catch {
                throw ValidationError("--journals: cannot use the directory \(journals): \(error.localizedDescription)")
            }
        }
        Report.emit(try RestoreBench.rows(flowd: options.flowdPath, sizes: sizes, launcherSizes: launcherSizes, runs: runs, journals: journals), quick: options.quick)
    }
}
