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

            Off loopback, the token and every action would cross the network in the clear: flowd-web \
            then serves HTTPS and WSS only, with --tls-cert and --tls-key (PEM files), unless --insecure \
            says to serve plain HTTP anyway (docs/web.md, "From another machine").

            Examples:
              flowd-web --socket /tmp/flowd-1000/flowd.sock
              flowd-web --host 0.0.0.0 --tls-cert cert.pem --tls-key key.pem   # from a laptop: https://THIS-HOST:8471/...
              openssl req -x509 -newkey rsa:2048 -nodes -days 365 -subj /CN=myhost -keyout key.pem -out cert.pem
            """,
        version: FlowdVersion.string)

    @Option(name: .long, help: ArgumentHelp("flowd's socket (default: $FLOWD_SOCKET, else the per-user default).", valueName: "path"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("The address to listen on.", valueName: "address"))
    var host = "127.0.0.1"

    @Option(name: .long, help: ArgumentHelp("The port to listen on; 0 picks a free one.", valueName: "port"))
    var port = 8471

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("Serve HTTPS with this certificate chain (PEM).", valueName: "path"))
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The certificate's private key (PEM).", valueName: "path"))
    var tlsKey: String?

    @Flag(name: .long, help: "Serve plain HTTP off loopback: the token and every action cross the network unencrypted.")
    var insecure = false

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535, got \(port)") }
        if (tlsCertificate == nil) != (tlsKey == nil) {
            throw ValidationError("--tls-cert and --tls-key go together: give the certificate and its private key")
        }
        if insecure && tlsCertificate != nil { throw ValidationError("--insecure and --tls-cert contradict each other; give one") }
        if !AccessPolicy.isLoopback(host) && tlsCertificate == nil && !insecure {
            throw ValidationError("""
                --host \(host) is reachable from other machines, and plain HTTP would show them the token and every action \
                (anyone on the way could drive the app): give --tls-cert and --tls-key (a self-signed pair: openssl req -x509 \
                -newkey rsa:2048 -nodes -days 365 -subj /CN=$(hostname) -keyout key.pem -out cert.pem), or --insecure to serve \
                plain HTTP anyway, or keep the default --host 127.0.0.1 and reach it through ssh -L 8471:127.0.0.1:8471
                """)
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .notice
            return handler
        }
        let logger = Logger(label: "flowd-web")
        let path = socket ?? WireProtocol.defaultSocketPath(environment: ProcessInfo.processInfo.environment, uid: getuid())
        let tls = tlsCertificate.map { WebServer.TLS(certificatePath: $0, keyPath: tlsKey ?? "") }
        // The files are read before anything listens: a bad one is a bad argument.
        do {
            _ = try tls?.configuration()
        } catch {
            FileHandle.standardError.write(Data("flowd-web: \(error)\n".utf8))
            throw ExitCode(64)
        }
        let options = WebServer.Options(host: host, port: port, socketPath: path, tls: tls)
        let server = WebServer(options: options, logger: logger)
        if insecure && !AccessPolicy.isLoopback(host) {
            logger.warning("serving plain HTTP on \(host): the token and every action cross the network unencrypted; anyone on the way can read them and drive the app")
        }
        let signals = exitOnSignals()
        defer { signals.forEach { $0.cancel() } }
        // On every address, the URL names this machine as others reach it.
        let listening = AccessPolicy.isWildcard(host) ? AccessPolicy.machineHostName : host
        let shownHost = listening.contains(":") ? "[\(listening)]" : listening
        try await server.run { port in
            let base = "\(tls == nil ? "http" : "https")://\(shownHost):\(port)"
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
