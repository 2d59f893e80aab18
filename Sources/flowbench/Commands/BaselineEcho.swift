import ArgumentParser

/// `flowbench baseline-echo`: echo throughput of the C libuv server with N windowed clients.
struct BaselineEcho: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline-echo", abstract: "Echo throughput of the C libuv server; replies batched per read.")

    @OptionGroup var options: BenchOptions

    @Option(help: "Connected clients, each keeping a window of requests in flight.")
    var clients: Int = 16

    @Option(help: "Requests in flight per client.")
    var window: Int = Benchmarks.defaultWindow

    func validate() throws {
        guard clients >= 1 else { throw ValidationError("--clients must be at least 1, got \(clients)") }
        guard window >= 1 else { throw ValidationError("--window must be at least 1, got \(window)") }
    }

    func run() throws {
        OS.raiseOpenFileLimit()
        Report.progress("baseline-echo, \(clients) clients, window \(window)")
        let row = try Benchmarks.baselineEcho(clients: clients, window: window, settings: options.settings)
        Report.emit([row], quick: options.quick)
    }
}
