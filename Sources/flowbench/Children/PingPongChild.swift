import ArgumentParser
import CBenchRelay
import Histogram

#if canImport(Glibc)
import Glibc
#endif

/// `flowbench _pingpong`: one connection, one request in flight; prints the
/// round-trip percentiles (nanoseconds) as a `result` line.
struct PingPongChild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_pingpong", abstract: "Measures round trips on one connection (internal).", shouldDisplay: false)

    @Option(help: "The server's socket.")
    var socket: String

    @Option(help: "baseline or flowd.")
    var target: WireTarget = .baseline

    @Option(help: "Measured round trips.")
    var count: Int = 200_000

    @Option(help: "Round trips before measuring.")
    var warmup: Int = 20_000

    func run() throws {
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        let fd = cbr_connect(socket, &error)
        guard fd >= 0 else { throw BenchError(context: "ping-pong client", cError: error) }
        defer { close(fd) }
        let hello = target.hello
        guard cbr_handshake(fd, hello, hello.count, target.handshakeFrames, 30_000, &error) == 0 else {
            throw BenchError(context: "ping-pong client handshake", cError: error)
        }
        let request = target.request
        var samples = [UInt64](repeating: 0, count: count)
        let rc = samples.withUnsafeMutableBufferPointer {
            cbr_pingpong(fd, request, request.count, UInt64(warmup), UInt64(count), $0.baseAddress, &error)
        }
        guard rc == 0 else { throw BenchError(context: "ping-pong client", cError: error) }
        LatencySummary(samplesNanoseconds: samples).resultLine.emit()
    }
}
