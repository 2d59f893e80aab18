import ArgumentParser

/// `flowbench live-screens`: daemon memory per live screen and the time to place them (app deep-stack).
struct LiveScreens: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live-screens",
        abstract: "Resident memory per live screen and time to place them: deep-stack, 999 pushes per press.")

    @OptionGroup var options: BenchOptions

    @Option(help: "Presses of \"Push 999\" (999 screens each; 101 gives 100,900 screens).")
    var presses: Int?

    func run() throws {
        let presses = presses ?? options.settings.livePresses
        guard presses >= 1 else { throw ValidationError("--presses must be at least 1, got \(presses)") }
        Report.progress("live-screens, \(presses * 999 + 1) screens")
        Report.emit([try Benchmarks.liveScreens(flowd: options.flowdPath, presses: presses)], quick: options.quick)
    }
}
