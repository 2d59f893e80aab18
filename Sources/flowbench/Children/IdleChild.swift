import ArgumentParser
import CBenchRelay

#if canImport(Glibc)
import Glibc
#endif

/// `flowbench _idle`: connects and handshakes N clients, prints `ready`, then
/// holds them idle until its standard input ends.
struct IdleChild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_idle", abstract: "Holds idle handshaken connections (internal).", shouldDisplay: false)

    @Option(help: "The server's socket.")
    var socket: String

    @Option(help: "baseline or flowd.")
    var target: WireTarget = .flowd

    @Option(help: "Connections.")
    var count: Int = 1000

    func run() throws {
        let limit = OS.raiseOpenFileLimit()
        guard UInt64(count) + 16 <= limit else {
            throw BenchError("holding \(count) connections needs \(count + 16) open files, the hard limit is \(limit); raise it (ulimit -Hn) or use fewer")
        }
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        var handshakeSeconds = 0.0
        let hello = target.hello
        guard let load = cbr_load_open(socket, Int32(count), hello, hello.count, target.handshakeFrames, &handshakeSeconds, &error) else {
            throw BenchError(context: "idle clients", cError: error)
        }
        defer { cbr_load_close(load) }
        ResultLine("ready", [("handshake", "\(handshakeSeconds)")]).emit()
        var byte: UInt8 = 0
        while read(0, &byte, 1) > 0 {}
    }
}
