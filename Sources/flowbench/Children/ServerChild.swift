import ArgumentParser
import CBenchRelay

/// `flowbench _server`: the C libuv baseline server, run until SIGTERM.
struct ServerChild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_server", abstract: "Runs the baseline relay server (internal).", shouldDisplay: false)

    @Option(help: "The socket to listen on.")
    var socket: String

    @Option(help: "echo or relay.")
    var mode: String = "echo"

    func run() throws {
        OS.raiseOpenFileLimit()
        let cMode: cbr_mode
        switch mode {
        case "echo": cMode = CBR_MODE_ECHO
        case "relay": cMode = CBR_MODE_RELAY
        default: throw ValidationError("--mode must be echo or relay, got \(mode)")
        }
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        guard cbr_server_run(socket, cMode, 1, &error) == 0 else {
            throw BenchError(context: "baseline server", cError: error)
        }
    }
}
