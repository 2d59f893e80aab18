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
        let (relayRow, relayBaseline) = try Benchmarks.baselineRelay(settings: settings)
        rows.append(relayRow)
        Report.progress("flowd-ping")
        rows.append(try Benchmarks.flowdPing(flowd: flowd, settings: settings, baseline: baseline))
        Report.progress("dbus-call")
        let (dbusRow, dbus) = try Benchmarks.dbusCall(settings: settings)
        rows.append(dbusRow)
        Report.progress("flowd-relay")
        rows.append(try Benchmarks.flowdRelay(flowd: flowd, settings: settings, baseline: relayBaseline, dbus: dbus).row)

        var echoRates: [Int: Double] = [:]
        for clients in settings.echoClients {
            Report.progress("baseline-echo, \(clients) clients")
            let row = try Benchmarks.baselineEcho(clients: clients, window: Benchmarks.defaultWindow, settings: settings)
            echoRates[clients] = Benchmarks.rateValue(row)
            rows.append(row)
        }
        for clients in settings.echoClients {
            Report.progress("flowd-ping-echo, \(clients) clients")
            rows.append(try Benchmarks.flowdPingEcho(flowd: flowd, clients: clients, window: Benchmarks.defaultWindow, settings: settings))
        }
        for clients in settings.echoClients {
            Report.progress("flowd-echo, \(clients) hosts")
            rows.append(try Benchmarks.flowdEcho(
                flowd: flowd, clients: clients, window: Benchmarks.defaultWindow, settings: settings, baselineRate: echoRates[clients]))
        }

        rows += try IdleConnections.rows(count: settings.idleCount, flowd: flowd)
        Report.progress("live-screens, \(settings.livePresses * 999 + 1) screens")
        rows.append(try Benchmarks.liveScreens(flowd: flowd, presses: settings.livePresses))
        rows += try TreeCost.rows(sizes: settings.treeSizes, depths: settings.unwindDepths, operations: settings.treeOperations)
        Report.progress("startup, \(settings.startupRuns) runs")
        rows.append(try Benchmarks.startup(flowd: flowd, runs: settings.startupRuns))
        Report.progress("spawn-startup, \(settings.spawnRuns) runs")
        rows.append(try Benchmarks.spawnStartup(flowd: flowd, runs: settings.spawnRuns))
        Report.progress("spawn-pool, \(settings.spawnRuns * 3) runs each")
        rows += try Benchmarks.spawnPoolRows(flowd: flowd, runs: settings.spawnRuns * 3, idlePool: Benchmarks.idlePoolSize(quick: options.quick))
        Report.progress("screen-restart, \(settings.restartRuns) kills")
        rows.append(try Benchmarks.screenRestart(flowd: flowd, runs: settings.restartRuns))
        Report.progress("hung-host, \(settings.hungHosts) hosts")
        rows += try HungHost.rows(flowd: flowd, settings: settings)
        Report.progress("flood, \(settings.floodHosts) quiet hosts")
        rows += try Flood.rows(flowd: flowd, settings: settings)
        rows += try RestoreBench.rows(flowd: flowd, sizes: settings.restoreSizes, runs: settings.restoreRuns)
        rows += try HistoryBench.rows(flowd: flowd, inputs: options.quick ? 1_000 : 10_000, steps: options.quick ? 100 : 500)
        Report.emit(rows, quick: options.quick)
    }
}
