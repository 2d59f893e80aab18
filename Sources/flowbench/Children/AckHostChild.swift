import ArgumentParser
import CBenchRelay

#if canImport(Glibc)
import Glibc
#endif

/// `flowbench _ack-host`: a screen host of one kind that acknowledges every command and
/// answers the daemon's Pings until flowd closes the connection (the host `hung-host` stops).
struct AckHostChild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_ack-host", abstract: "Acknowledges every command of its screen (internal).", shouldDisplay: false)

    @Option(help: "flowd's socket.")
    var socket: String

    @Option(help: "The screen kind this host provides.")
    var kind: String

    func run() throws {
        let (fd, screen) = try FlowHost.connect(socket: socket, kind: kind, context: "ack host")
        defer { close(fd) }
        ResultLine("connected", [("screen", "\(screen)")]).emit()
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        guard cbr_host_serve(fd, &error) == 0 else { throw BenchError(context: "ack host", cError: error) }
    }
}
