import ArgumentParser

/// `flowbench all`: every benchmark, one table.
struct All: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "all", abstract: "Runs every benchmark (baseline and flowd) and prints one table.")

    @OptionGroup var options: BenchOptions

    func run() throws {
        OS.raiseOpenFileLimit()
        let settings = options.settings
        let flowd = options.flowdPath
        var rows: [TableRow] = []

        Report.progress("baseline-pingpong")
        let (pingPongRow, baseline) = try Benchmarks.baselinePingPong(settings: settings)
        rows.append(pingPongRow)
        Report.progress("baseline-relay")
        rows.append(try Benchmarks.baselineRelay(settings: settings).0)
        Report.progress("flowd-ping")
        rows.append(try Benchmarks.flowdPing(flowd: flowd, settings: settings, baseline: baseline))

        for clients in settings.echoClients {
            Report.progress("baseline-echo, \(clients) clients")
            rows.append(try Benchmarks.baselineEcho(clients: clients, window: Benchmarks.defaultWindow, settings: settings))
        }
        for clients in settings.echoClients {
            Report.progress("flowd-ping-echo, \(clients) clients")
            rows.append(try Benchmarks.flowdPingEcho(flowd: flowd, clients: clients, window: Benchmarks.defaultWindow, settings: settings))
        }

        rows += try IdleConnections.rows(count: settings.idleCount, flowd: flowd)
        Report.progress("startup, \(settings.startupRuns) runs")
        rows.append(try Benchmarks.startup(flowd: flowd, runs: settings.startupRuns))
        Report.emit(rows, quick: options.quick)
    }
}
