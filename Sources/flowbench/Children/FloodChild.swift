import ArgumentParser
import CBenchRelay

#if canImport(Glibc)
import Glibc
#endif

/// `flowbench _flood`: a screen host of one kind that, once a line arrives on its standard input,
/// sends outputs for its screen as fast as the socket takes them (acknowledging its Updates and
/// answering Pings) until the next line, then prints a `result` line with what it sent and read.
struct FloodChild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_flood", abstract: "Floods flowd with outputs of one screen (internal).", shouldDisplay: false)

    @Option(help: "flowd's socket.")
    var socket: String

    @Option(help: "The screen kind this host provides.")
    var kind: String

    func run() throws {
        let (fd, screen) = try FlowHost.connect(socket: socket, kind: kind, context: "flooding host")
        defer { close(fd) }
        ResultLine("connected", [("screen", "\(screen)")]).emit()
        guard readLine() != nil else { return }
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        var result = cbr_flood_result()
        guard cbr_host_flood(fd, screen, 0, STDIN_FILENO, &result, &error) == 0 else {
            throw BenchError(context: "flooding host", cError: error)
        }
        ResultLine("result", [
            ("outputs", "\(result.outputs)"), ("updates", "\(result.updates)"), ("seconds", "\(result.seconds)"),
        ]).emit()
    }
}
