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

/// `flowctl watch`: the live event stream.
struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the daemon's events as they happen, one line per event.",
        discussion: """
            Events: connections and handshakes, flows started / outputs / finished / terminated, \
            placements (place, update, placement-changed, dismiss), acks, screen outputs, user \
            navigation, injections, errors, shutdown. Each line has the time, the event's sequence number, \
            its kind and what happened; colours only when stdout is a terminal and NO_COLOR is not set.

            --json prints one JSON object per line (flushed per line, for jq). Filters combine with AND \
            and are applied by the daemon: --kind (repeatable, or comma-separated), --flow (events about \
            that flow only, not its sub-flows), --screen.

            A watcher that reads too slowly never slows the daemon: the daemon skips it while more than \
            256 KiB wait unread and, once it catches up, sends a notice that is printed as \
            "lagged: N events dropped ...". Stops on Ctrl-C (exit 0), after --count events, or when the \
            daemon shuts down (exit 0). A status line goes to stderr once the subscription is active.

            Kinds: \(EventKindName.all.map(\.name).joined(separator: ", ")).

            Examples:
              flowctl watch
              flowctl watch --kind place,dismiss --screen 4
              flowctl watch --json | jq -c 'select(.kind == "output")'
              flowctl watch --count 10 --flow 2
            """)

    @OptionGroup var connection: ConnectionOptions

    @Flag(name: .long, help: "Print one JSON object per event.")
    var json = false

    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("Only events of these kinds (repeatable, or comma-separated).", valueName: "kind"))
    var kind: [String] = []

    @Option(name: .long, help: ArgumentHelp("Only events about this flow.", valueName: "id"))
    var flow: UInt64 = 0

    @Option(name: .long, help: ArgumentHelp("Only events about this screen.", valueName: "id"))
    var screen: UInt64 = 0

    @Option(name: .long, help: ArgumentHelp("Stop after this many events.", valueName: "n"))
    var count: Int?

    @Flag(name: .long, help: "Include screen state and output payloads.")
    var payloads = false

    @Flag(name: .long, help: "Never use colours.")
    var noColor = false

    var kinds: [Flowd_V1_EventKind] {
        kind.flatMap { $0.split(separator: ",") }.compactMap { EventKindName.kind(named: $0.trimmingWhitespace) }
    }

    func validate() throws {
        for name in kind.flatMap({ $0.split(separator: ",") }) where EventKindName.kind(named: name.trimmingWhitespace) == nil {
            throw ValidationError("unknown event kind '\(name)'; kinds: \(EventKindName.all.map(\.name).joined(separator: ", "))")
        }
        if let count, count < 1 { throw ValidationError("--count must be at least 1, got \(count)") }
    }

    func run() throws {
        let client = connection.connect()
        defer { client.close() }
        do {
            try client.subscribe(kinds: kinds, flow: flow, screen: screen, payloads: payloads, timeoutMilliseconds: connection.milliseconds)
        } catch {
            fail(error)
        }
        note("watching flowd at \(client.path) (app \(client.welcome.app)); Ctrl-C to stop")
        let formatter = EventFormatter(
            color: !noColor && EventFormatter.wantsColor(isTerminal: isatty(STDOUT_FILENO) == 1, environment: ProcessInfo.processInfo.environment))
        var seen = 0
        _ = streamFrames(client) { frame in
            switch frame.body {
            case .event(let event):
                emitLine(json ? EventFormatter.json(event) : formatter.line(event))
                seen += 1
                if let count, seen >= count { return false }
            case .lagged(let lagged):
                emitLine(json ? EventFormatter.json(lagged) : formatter.line(lagged))
            case .shutdown(let shutdown):
                note("flowd is shutting down: \(shutdown.message)")
            case .error(let error):
                note("flowd: \(error.message) (\(error.code))")
            default:
                break
            }
            return true
        }
    }
}
