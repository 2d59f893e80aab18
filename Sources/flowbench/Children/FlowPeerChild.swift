import ArgumentParser
import CBenchRelay

#if canImport(Glibc)
import Glibc
#endif

/// `flowbench _flow-peer`: host B of the flowd relay: answers every Update of its
/// screen with an Ack and a button press, in one write.
struct FlowPeerChild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_flow-peer", abstract: "Answers Updates with outputs (internal).", shouldDisplay: false)

    @Option(help: "flowd's socket.")
    var socket: String

    @Option(help: "The screen kind this host provides.")
    var kind: String = "bench-relay-b"

    func run() throws {
        let (fd, screen) = try FlowHost.connect(socket: socket, kind: kind, context: "flow relay host B")
        defer { close(fd) }
        ResultLine("connected", [("screen", "\(screen)")]).emit()
        let output = FlowHost.outputFrame(screen: screen, button: 0)
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        guard cbr_flow_peer(fd, output, output.count, screen, &error) == 0 else {
            throw BenchError(context: "flow relay host B", cError: error)
        }
    }
}
