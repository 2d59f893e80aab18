import ArgumentParser

/// `flowbench idle-connections`: resident memory per idle handshaken connection, flowd and baseline.
struct IdleConnections: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idle-connections",
        abstract: "Resident memory per idle connection (VmRSS above the empty server) and time to connect them all.")

    @OptionGroup var options: BenchOptions

    @Option(help: "Idle clients to connect; each completes the handshake.")
    var count: Int?

    func run() throws {
        OS.raiseOpenFileLimit()
        let count = count ?? options.settings.idleCount
        guard count >= 1 else { throw ValidationError("--count must be at least 1, got \(count)") }
        Report.emit(try Self.rows(count: count, flowd: options.flowdPath), quick: options.quick)
    }

    /// The baseline row, then flowd's.
    static func rows(count: Int, flowd: String) throws -> [TableRow] {
        Report.progress("idle-connections, baseline, \(count)")
        let baseline = try Benchmarks.idleConnections(
            ServerUnderTest.baseline(mode: "echo"), name: "idle-connections", count: count, target: nil)
        Report.progress("idle-connections, flowd, \(count)")
        var flowdRow = try Benchmarks.idleConnections(
            ServerUnderTest.flowd(executable: flowd), name: "idle-connections", count: count, target: 2048)
        var baselineRow = baseline
        baselineRow.setting = "C libuv: " + baselineRow.setting
        flowdRow.setting = "flowd: " + flowdRow.setting
        return [baselineRow, flowdRow]
    }
}
