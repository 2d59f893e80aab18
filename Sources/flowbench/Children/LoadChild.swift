import ArgumentParser
import CBenchRelay

/// `flowbench _load`: N connections each keeping a window of requests in flight;
/// prints a `result` line with the replies counted and the CPU times.
struct LoadChild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_load", abstract: "Drives many windowed connections (internal).", shouldDisplay: false)

    @Option(help: "The server's socket.")
    var socket: String

    @Option(help: "baseline or flowd.")
    var target: WireTarget = .baseline

    @Option(help: "Connections.")
    var connections: Int = 1

    @Option(help: "Requests in flight per connection.")
    var window: Int = 64

    @Option(help: "Seconds before measuring.")
    var warmup: Double = 0.5

    @Option(help: "Seconds measured.")
    var seconds: Double = 2

    @Option(help: "The server's process id, for its CPU time.")
    var serverPid: Int32 = 0

    @Option(help: "flowd screen hosts: connection i provides kind <prefix><i> and presses a button on its screen.")
    var hostKindPrefix: String?

    func run() throws {
        OS.raiseOpenFileLimit()
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        var handshakeSeconds = 0.0
        let hello = target.hello
        let opened = hostKindPrefix.map { cbr_load_open_hosts(socket, Int32(connections), $0, &handshakeSeconds, &error) }
            ?? cbr_load_open(socket, Int32(connections), hello, hello.count, target.handshakeFrames, &handshakeSeconds, &error)
        guard let load = opened else {
            throw BenchError(context: "load client", cError: error)
        }
        defer { cbr_load_close(load) }
        // Hosts: the JSON of the output, NUL-terminated; the C driver frames it per screen.
        let request = hostKindPrefix == nil ? target.request : Array(FlowHost.pressJSON(0).utf8) + [0]
        var result = cbr_load_result()
        guard cbr_load_run(load, request, request.count, Int32(window), warmup, seconds, serverPid, &result, &error) == 0 else {
            throw BenchError(context: "load client", cError: error)
        }
        ResultLine("result", [
            ("handshake", "\(handshakeSeconds)"),
            ("messages", "\(result.messages)"),
            ("seconds", "\(result.seconds)"),
            ("server_cpu", "\(result.server_cpu_seconds)"),
            ("client_cpu", "\(result.client_cpu_seconds)"),
        ]).emit()
    }
}
