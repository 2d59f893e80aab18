import ArgumentParser
import FlowDaemon
import FlowWire
import Foundation
import Logging

/// `flowd`: parses arguments, sets up logging, runs the daemon.
@main
struct Flowd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowd",
        abstract: "The flowd daemon: runs an app's flows for screen processes connected over a Unix socket.",
        discussion: """
            Stops gracefully on SIGTERM or SIGINT (Ctrl-C): every client gets a Shutdown frame and the \
            daemon exits 0. A second signal exits at once.

            Exit codes: 0 clean stop, 64 bad arguments, 69 another flowd already serves the socket, \
            73 the socket cannot be created, 70 internal error.

            Examples:
              flowd                                   # default socket, see --socket
              flowd --socket /tmp/f/flowd.sock --log-level debug
            """,
        version: FlowdVersion.string)

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The Unix socket to listen on.",
            discussion: "Default: $FLOWD_SOCKET, else $XDG_RUNTIME_DIR/flowd/flowd.sock, else /tmp/flowd-<uid>/flowd.sock.",
            valueName: "path"))
    var socket: String?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    @Option(name: .long, help: ArgumentHelp("Seconds a new connection has to send Hello.", valueName: "seconds"))
    var handshakeTimeout: Double = 5

    @Option(name: .long, help: ArgumentHelp("Largest frame accepted, in bytes.", valueName: "bytes"))
    var maxFrameSize: Int = 1 << 20

    @Option(name: .long, help: ArgumentHelp("Bytes queued for one client before it is disconnected as stalled.", valueName: "bytes"))
    var writeQueueLimit: Int = 4 << 20

    func validate() throws {
        guard handshakeTimeout > 0, handshakeTimeout <= 3600 else {
            throw ValidationError("--handshake-timeout must be between 0 and 3600 seconds, got \(handshakeTimeout)")
        }
        guard (4096...(64 << 20)).contains(maxFrameSize) else {
            throw ValidationError("--max-frame-size must be between 4096 and 67108864 bytes, got \(maxFrameSize)")
        }
        guard writeQueueLimit >= maxFrameSize else {
            throw ValidationError("--write-queue-limit (\(writeQueueLimit)) must be at least --max-frame-size (\(maxFrameSize))")
        }
    }

    func run() throws {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "flowd")
        ResourceLimits.raiseOpenFileLimit()

        var configuration = DaemonConfiguration(
            socketPath: socket ?? WireProtocol.defaultSocketPath(environment: ProcessInfo.processInfo.environment, uid: getuid()))
        configuration.handshakeTimeoutMilliseconds = UInt64(handshakeTimeout * 1000)
        configuration.maxFrameSize = maxFrameSize
        configuration.writeQueueLimit = writeQueueLimit

        do {
            let daemon = try Daemon(configuration: configuration, logger: logger)
            try daemon.run()
        } catch {
            FileHandle.standardError.write(Data("flowd: \(error.description)\n".utf8))
            throw ExitCode(error.exitCode)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
