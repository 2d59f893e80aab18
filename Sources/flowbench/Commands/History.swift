import ArgumentParser
import Foundation

/// `flowbench history`: stepping through a long history of inputs (the inspector's timeline).
struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Time a step to a moment of a long history of inputs (GetMoment), and the first question that replays it.",
        discussion: """
            flowd starts on a journal of deep-stack (written by flowd's own core), is asked for its history once \
            (its scratch runtime replays the journal), then for moments in a random order. The memory column is \
            what the history keeps per input.
            """)

    @OptionGroup var options: BenchOptions

    @Option(help: "Inputs in the history (default 10000; --quick: 1000).")
    var inputs: Int?

    @Option(help: "Moments asked for (default 500; --quick: 100).")
    var steps: Int?

    func run() throws {
        let inputs = inputs ?? (options.quick ? 1_000 : 10_000)
        let steps = steps ?? (options.quick ? 100 : 500)
        guard inputs >= 1, steps >= 1 else { throw ValidationError("--inputs and --steps must be at least 1") }
        Report.emit(try HistoryBench.rows(flowd: options.flowdPath, inputs: inputs, steps: steps), quick: options.quick)
    }
}
