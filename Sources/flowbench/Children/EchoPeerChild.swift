import ArgumentParser
import CBenchRelay

#if canImport(Glibc)
import Glibc
#endif

/// `flowbench _echo-peer`: host B of the relay; sends back what it receives.
struct EchoPeerChild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_echo-peer", abstract: "Echoes frames back through the relay (internal).", shouldDisplay: false)

    @Option(help: "The relay server's socket.")
    var socket: String

    func run() throws {
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        let fd = cbr_connect(socket, &error)
        guard fd >= 0 else { throw BenchError(context: "relay host B", cError: error) }
        defer { close(fd) }
        ResultLine("connected").emit()
        guard cbr_handshake(fd, nil, 0, 1, -1, &error) == 0, cbr_echo_peer(fd, &error) == 0 else {
            throw BenchError(context: "relay host B", cError: error)
        }
    }
}
