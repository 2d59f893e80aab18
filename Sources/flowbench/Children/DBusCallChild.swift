import ArgumentParser
import CBenchRelay

/// `flowbench _dbus-call`: process A of the D-Bus row; calls Echo synchronously (one call in
/// flight) and prints the round-trip percentiles (nanoseconds) as a `result` line.
struct DBusCallChild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_dbus-call", abstract: "Measures D-Bus method calls (internal).", shouldDisplay: false)

    @Option(help: "The bus's D-Bus address (unix:path=...).")
    var address: String

    @Option(help: "Bytes of the Echo argument.")
    var payload: Int = Benchmarks.dbusPayloadBytes

    @Option(help: "Measured calls.")
    var count: Int = 200_000

    @Option(help: "Calls before measuring.")
    var warmup: Int = 20_000

    func run() throws {
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        var samples = [UInt64](repeating: 0, count: count)
        let rc = samples.withUnsafeMutableBufferPointer {
            cbr_dbus_pingpong(address, payload, UInt64(warmup), UInt64(count), $0.baseAddress, &error)
        }
        guard rc == 0 else { throw BenchError(context: "D-Bus client (process A)", cError: error) }
        LatencySummary(samplesNanoseconds: samples).resultLine.emit()
    }
}
