import ArgumentParser
import FlowWire
import Foundation
import Logging
import WebHost

#if Web

/// `flowd-web`: flowd in a browser (docs/web.md).
@main
struct FlowdWeb: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowd-web",
        abstract: "Serve flowd's screens and a live inspector to a browser.",
        discussion: """
            Each browser tab on / is a screen host of flowd (it provides the demo's screen kinds, or those \
            of ?kinds=a,b); /inspector draws the flow tree and the navigation model of the daemon at \
            --socket live and drives it. Listens on 127.0.0.1 unless --host says otherwise; every page \
            and WebSocket needs the token in the URL printed at start.

            Examples:
              flowd-web --socket /tmp/flowd-1000/flowd.sock
              flowd-web --port 8471 --host 0.0.0.0   # reachable from other machines: mind the token
            """)

    @Option(name: .long, help: ArgumentHelp("flowd's socket (default: $FLOWD_SOCKET, else the per-user default).", valueName: "path"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("The address to listen on.", valueName: "address"))
    var host = "127.0.0.1"

    @Option(name: .long, help: ArgumentHelp("The port to listen on; 0 picks a free one.", valueName: "port"))
    var port = 8471

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535, got \(port)") }
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .notice
            return handler
        }
        let logger = Logger(label: "flowd-web")
        let path = socket ?? WireProtocol.defaultSocketPath(environment: ProcessInfo.processInfo.environment, uid: getuid())
        let options = WebServer.Options(host: host, port: port, socketPath: path)
        let server = WebServer(options: options, logger: logger)
        let signals = exitOnSignals()
        defer { signals.forEach { $0.cancel() } }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        try await server.run { port in
            let base = "http://\(shownHost):\(port)"
            // Written at once, unbuffered: scripts and tests read the URLs from a pipe.
            FileHandle.standardOutput.write(Data("""
                flowd-web: screens   \(base)/?token=\(options.token)
                flowd-web: inspector \(base)/inspector?token=\(options.token)
                flowd-web: serving flowd at \(path); Ctrl-C to stop

                """.utf8))
        }
    }
}

/// Ctrl-C and SIGTERM end flowd-web at once (exit 0). Its tabs' connections to flowd drop, so flowd
/// holds their screens for the resume grace, as for any host that went away; a graceful stop
/// would wait for every open WebSocket, i.e. for every browser tab to close.
private func exitOnSignals() -> [any DispatchSourceSignal] {
    [SIGINT, SIGTERM].map { number in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler {
            FileHandle.standardError.write(Data("flowd-web: stopped by signal \(number)\n".utf8))
            exit(0)
        }
        source.resume()
        return source
    }
}
#else
/// Built without the package's Web trait (an app's package that depends on flowd with `traits: []`):
/// there is no HTTP server to run.
@main
enum FlowdWeb {
    static func main() {
        FileHandle.standardError.write(Data("""
            flowd-web: built without the Web trait, so it has no HTTP server; build it in flowd's own \
            package (swift build --product flowd-web), or depend on flowd with its default traits

            """.utf8))
        exit(69)
    }
}
#endif
