import ArgumentParser
import FlowControl
import FlowWire
import Foundation

/// `flowctl`: the debug client of flowd.
@main
struct Flowctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowctl",
        abstract: "Attach to a running flowd: check it, inspect it, drive it.",
        discussion: """
            Exit codes: 0 success, 1 the daemon refused or failed the request, \
            64 bad arguments, 69 no daemon at the socket.
            """,
        version: FlowdVersionString.value,
        subcommands: [Ping.self, Stats.self])
}

/// Options every subcommand shares.
struct ConnectionOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The daemon's socket.",
            discussion: "Default: $FLOWD_SOCKET, else $XDG_RUNTIME_DIR/flowd/flowd.sock, else /tmp/flowd-<uid>/flowd.sock (as flowd).",
            valueName: "path"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for an answer.", valueName: "seconds"))
    var timeout: Double = 5

    var path: String {
        socket ?? WireProtocol.defaultSocketPath(environment: ProcessInfo.processInfo.environment, uid: getuid())
    }

    /// Connects with the debug role, or exits with a clear message.
    func connect() throws -> FlowClient {
        do {
            return try FlowClient.connect(
                path: path, role: .debug, name: "flowctl", timeoutMilliseconds: Int32(timeout * 1000))
        } catch {
            fail(error)
        }
    }
}

/// Prints the error to stderr and exits: 69 when no daemon runs, else 1.
func fail(_ error: ClientError) -> Never {
    FileHandle.standardError.write(Data("flowctl: \(error)\n".utf8))
    if case .noDaemon = error { Foundation.exit(69) }
    Foundation.exit(1)
}

enum FlowdVersionString {
    static let value = "0.1.0"
}
