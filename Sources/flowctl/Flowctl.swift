import ArgumentParser
import FlowControl
import FlowWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `flowctl`: the debug client of flowd.
@main
struct Flowctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowctl",
        abstract: "Attach to a running flowd: check it, inspect it, drive it.",
        discussion: """
            Every command takes --socket (default: the same socket as flowd) and --timeout. \
            See docs/flowctl.md for every command with its output.

            Exit codes: 0 success, 1 the daemon refused or failed the request, \
            64 bad arguments, 69 no daemon at the socket, 73 a socket path longer than the 107 bytes a Unix \
            socket address holds (as flowd), 77 another user serves the socket (refused before anything is sent).

            Examples:
              flowctl tree
              flowctl watch --kind place,dismiss
              flowctl inject 3 '{"didPressButton":{"index":1}}'
              flowctl terminate 2
              flowctl dot | dot -Tsvg > tree.svg
            """,
        version: FlowdVersion.string,
        subcommands: [
            Ping.self, Stats.self, Tree.self, Dot.self, Watch.self, Record.self, History.self, At.self,
            Inject.self, Back.self, SelectTab.self, CloseModal.self, Terminate.self, Open.self, Where.self, Describe.self, Audit.self,
        ])
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
    var timeout = Double(FlowClient.defaultTimeoutMilliseconds) / 1000

    func validate() throws {
        guard timeout > 0, timeout <= 86_400 else { throw ValidationError("--timeout must be between 0 and 86400 seconds, got \(timeout)") }
    }

    var path: String {
        socket ?? WireProtocol.defaultSocketPath(environment: ProcessInfo.processInfo.environment, uid: getuid())
    }

    /// Connects with the debug role, offering to accept frames of up to `maxFrameSize` bytes (0: the
    /// default), or exits with a clear message.
    func connect(maxFrameSize: UInt32 = 0) -> FlowClient {
        do {
            return try FlowClient.connect(
                path: path, role: .debug, name: "flowctl", maxFrameSize: maxFrameSize, timeoutMilliseconds: Int32(timeout * 1000))
        } catch {
            fail(error)
        }
    }
}

/// Prints the error to stderr and exits: 69 when no daemon runs, 73 for a socket path longer than a
/// Unix socket address holds (as flowd), 77 when another user serves the socket, else 1.
func fail(_ error: ClientError) -> Never {
    writeAll(STDERR_FILENO, "flowctl: \(error)\n")
    if case .noDaemon = error { exit(69) }
    if case .socket(let failure) = error, failure.isPathTooLong { exit(73) }
    if case .socket(let failure) = error, failure.untrustedServer != nil { exit(77) }
    exit(1)
}

/// Prints a message to stderr and exits 1 (the request failed).
func fail(_ message: String) -> Never {
    writeAll(STDERR_FILENO, "flowctl: \(message)\n")
    exit(1)
}

/// Writes one line to stdout at once (an unbuffered write), so that pipes see each line as it happens.
func emitLine(_ line: String) {
    emitText(line + "\n")
}

/// Writes text to stdout at once (unbuffered).
func emitText(_ text: String) {
    writeAll(STDOUT_FILENO, text)
}

/// Writes a note to stderr (status lines that must not mix with data on stdout).
func note(_ line: String) {
    writeAll(STDERR_FILENO, "flowctl: \(line)\n")
}

/// `write(2)` until all of `text` is written (or the descriptor fails): what FileHandle's `write`
/// did, without full Foundation (FileHandle would link it, and ICU's data, into a static flowctl).
func writeAll(_ descriptor: Int32, _ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}

extension ConnectionOptions {
    /// The timeout in milliseconds, for requests.
    var milliseconds: Int32 { Int32(min(timeout * 1000, Double(Int32.max))) }

    /// Runs `body` with a connected client, turning client errors into exits (69, 77 or 1). The client
    /// offers to take frames as large as any flowd sends (`Record.maxFrameSize`): a large tree arrives
    /// whole up to the daemon's own `--max-frame-size`.
    func with<T>(_ body: (FlowClient) throws(ClientError) -> T) -> T {
        let client = connect(maxFrameSize: Record.maxFrameSize)
        defer { client.close() }
        do {
            return try body(client)
        } catch {
            fail(error)
        }
    }
}
