import ArgumentParser
import CBenchRelay

#if canImport(Glibc)
import Glibc
#endif

/// `flowbench _flow-pingpong`: host A of the flowd relay: presses a button on its
/// screen and waits for the Update of that screen; prints the percentiles.
struct FlowPingPongChild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_flow-pingpong", abstract: "Measures round trips through a flow (internal).", shouldDisplay: false)

    @Option(help: "flowd's socket.")
    var socket: String

    @Option(help: "The screen kind this host provides.")
    var kind: String = "bench-relay-a"

    @Option(help: "Measured round trips.")
    var count: Int = 200_000

    @Option(help: "Round trips before measuring.")
    var warmup: Int = 20_000

    func run() throws {
        let (fd, screen) = try FlowHost.connect(socket: socket, kind: kind, context: "flow relay host A")
        defer { close(fd) }
        let output = FlowHost.outputFrame(screen: screen, button: 0)
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        var samples = [UInt64](repeating: 0, count: count)
        let rc = samples.withUnsafeMutableBufferPointer {
            cbr_flow_pingpong(fd, output, output.count, screen, UInt64(warmup), UInt64(count), $0.baseAddress, &error)
        }
        guard rc == 0 else { throw BenchError(context: "flow relay host A", cError: error) }
        LatencySummary(samplesNanoseconds: samples).resultLine.emit()
    }
}
