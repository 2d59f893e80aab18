import CBenchRelay

/// The D-Bus row as `flowd-relay`'s note compares with it: its latency, or why it has none.
enum DBusPeer {
    case measured(LatencySummary)
    case unavailable(String)
}

/// The D-Bus row: what a user would pick instead of flowd, on the same A -> broker -> B ->
/// broker -> A shape as `baseline-relay` and `flowd-relay`.
extension Benchmarks {
    /// Bytes of the Echo argument (and of its reply).
    static let dbusPayloadBytes = 64

    /// Process A -> dbus-daemon -> process B (sd-bus, Echo returns its 64-byte `ay`) ->
    /// dbus-daemon -> process A, one synchronous call in flight, on a private dbus-daemon.
    /// `server CPU/op` is the broker's CPU per round trip. A machine without dbus-daemon or
    /// libsystemd, or whose dbus-daemon does not start, gets a row that says why.
    static func dbusCall(settings: BenchSettings) throws -> (TableRow, DBusPeer) {
        let setting = "A -> dbus-daemon -> B -> dbus-daemon -> A (sd-bus, \(dbusPayloadBytes) B)"
        func unavailable(_ reason: String) -> (TableRow, DBusPeer) {
            (TableRow(benchmark: "dbus-call", setting: setting, note: "unavailable: \(reason)"), .unavailable(reason))
        }
        if let reason = DBusBroker.unavailableReason() { return unavailable(reason) }
        let broker: DBusBroker
        do {
            broker = try DBusBroker.start()
        } catch let error as BenchError {
            return unavailable(error.description)
        }
        let server = try ChildProcess.flowbench(["_dbus-server", "--address", broker.address])
        _ = try server.expect("ready")
        let (summary, cpu) = try latencyClient(
            ["_dbus-call", "--address", broker.address, "--payload", "\(dbusPayloadBytes)"], serverPID: broker.pid, settings: settings)
        server.stop()
        return (latencyRow("dbus-call", setting, summary, cpu), .measured(summary))
    }

    /// The part of `flowd-relay`'s note that compares `summary` with the D-Bus call:
    /// `x0.45 p50, x0.48 p99 vs dbus-call`. No target: the relay's (x1.25 of the C relay) is the
    /// stricter one (docs/performance.md, "Targets").
    static func dbusNote(_ summary: LatencySummary, _ peer: DBusPeer) -> String {
        switch peer {
        case .unavailable:
            return "dbus-call unavailable"
        case .measured(let dbus):
            let p50 = Double(summary.p50) / Double(max(1, dbus.p50))
            let p99 = Double(summary.p99) / Double(max(1, dbus.p99))
            return "x\(Format.fixed(p50, 2)) p50, x\(Format.fixed(p99, 2)) p99 vs dbus-call"
        }
    }
}
