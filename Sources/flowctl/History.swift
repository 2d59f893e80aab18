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

/// `flowctl history`: the inputs the app's state is made of, or a range of them as a recording.
struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the journaled inputs, each with what it changed, or export a range as a recording.",
        discussion: """
            The history is what a restore would replay: every input since the app's start, or since the \
            journal's checkpoint when it was compacted (moment 0 is then that checkpoint). Input N leads \
            to moment N, which `flowctl at N` prints. The daemon computes it in a scratch runtime fed the \
            journaled inputs; the live app is never touched. Times are when the daemon received each input \
            (to the millisecond; "-" for inputs an older flowd journaled).

            --export FILE writes inputs --from to --to as a `flowctl record` recording that starts at the \
            moment before --from: `flowd replay FILE` checks it ("same placements"), and \
            `flowd replay FILE --until N --serve` starts a daemon at any moment of it; a recording of a \
            custom daemon replays with that daemon's own `replay` (the hint after the export names it). --json prints the \
            flowd.v1.History message in the proto3 JSON mapping (64-bit numbers are strings there).

            Examples:
              flowctl history
              flowctl history --from 40 --to 60
              flowctl history --json | jq '.inputs[] | .text'
              flowctl history --from 12 --to 20 --export bug.rec && flowd replay bug.rec
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .long, help: ArgumentHelp("The first input (1: the first held).", valueName: "n"))
    var from: UInt64 = 1

    @Option(name: .long, help: ArgumentHelp("The last input (default: the last held).", valueName: "n"))
    var to: UInt64?

    @Option(name: .long, help: ArgumentHelp("Write the range as a recording to this file (replaced if it exists).", valueName: "file"))
    var export: String?

    @Flag(name: .long, help: "Print the History message as one JSON object.")
    var json = false

    func validate() throws {
        guard from >= 1 else { throw ValidationError("--from must be at least 1 (the first input), got \(from)") }
        if let to, to < from { throw ValidationError("--to (\(to)) must not be before --from (\(from))") }
        if export != nil && json { throw ValidationError("--export writes a recording; it does not take --json") }
    }

    func run() throws {
        // A long history's pages and an exported start may be larger than a default frame.
        let client = connection.connect(maxFrameSize: Record.maxFrameSize)
        defer { client.close() }
        if let export {
            exportRange(to: export, client: client)
            return
        }
        let history: Flowd_V1_History
        do {
            history = try client.history(from: from, to: to ?? 0, timeoutMilliseconds: connection.milliseconds)
        } catch {
            fail(error)
        }
        if json {
            emitLine((try? history.jsonString()) ?? "{}")
            return
        }
        emitText(HistoryRenderer.render(history))
    }

    private func exportRange(to path: String, client: FlowClient) {
        let frames: [UInt8]
        do {
            frames = try HistoryExport.recording(from: from - 1, to: to ?? 0, client: client, timeoutMilliseconds: connection.milliseconds)
        } catch let error as ClientError {
            fail(error)
        } catch {
            fail("cannot export inputs \(from) to \(to.map(String.init) ?? "the last"): \(error)")
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(frames), attributes: [.posixPermissions: 0o600]) else {
            fail("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        // The program that made it replays it: a custom daemon's own `replay`, not flowd's (Stats.server).
        let stats = try? client.request(.getStats(Flowd_V1_GetStats()), timeoutMilliseconds: connection.milliseconds)
        var program = "flowd"
        if case .stats(let answer)? = stats?.body, !answer.server.isEmpty { program = answer.server }
        note("wrote \(path) (\(frames.count) bytes): moment \(from - 1) and inputs \(from) to \(to.map(String.init) ?? "the last"); check it with `\(program) replay \(path)`")
    }
}

/// `flowctl at N`: the app right after input N.
struct At: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the flows, the navigation hierarchy and each screen's state right after input N.",
        discussion: """
            Moment 0 is the start (the app's fresh start, or the journal's checkpoint); moment N is right \
            after input N of `flowctl history`. The daemon rebuilds it in a scratch runtime fed the \
            journaled inputs up to N; the live app is never touched. --json prints the flowd.v1.Moment \
            message in the proto3 JSON mapping.

            Examples:
              flowctl at 0
              flowctl at 42
              flowctl at 42 --json | jq '.tree.window'
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The moment: 0 (the start) up to the number of inputs held.", valueName: "n"))
    var index: UInt64

    @Flag(name: .long, help: "Print the Moment message as one JSON object.")
    var json = false

    func run() throws {
        let moment = connection.with { client throws(ClientError) in try client.moment(index, timeoutMilliseconds: connection.milliseconds) }
        if json {
            emitLine((try? moment.jsonString()) ?? "{}")
        } else {
            emitText(HistoryRenderer.render(moment))
        }
    }
}
