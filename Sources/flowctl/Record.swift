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

/// `flowctl record FILE`: every event with its payload, to a file `flowd replay` reads.
struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record every event with its payload to a file, for `flowd replay`.",
        discussion: """
            The file holds wire frames (a 4-byte little-endian length, then a flowd.v1.Envelope): first \
            the Tree when recording started, with what rebuilds that state (the inputs since the app's \
            start or its journal's checkpoint), then every Event (with state, output and navigation \
            payloads) and any Lagged notice, each written whole as it arrives. Stops on Ctrl-C or SIGTERM \
            (the file is complete; exit 0), after --count events, or when the daemon shuts down. Record \
            at any moment: `flowd replay FILE` rebuilds the state the recording starts from, runs the app \
            on fake screens, feeds the recorded inputs and compares the placements.

            Examples:
              flowctl record bug.rec
              flowctl record session.rec --count 500
              flowd replay bug.rec
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The file to write (replaced if it exists).", valueName: "file"))
    var file: String

    @Option(name: .long, help: ArgumentHelp("Stop after this many events.", valueName: "n"))
    var count: Int?

    /// The largest frame the recorder accepts (`flowd --max-frame-size`'s own largest).
    static let maxFrameSize: UInt32 = 64 << 20

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1, got \(count)") }
    }

    func run() throws {
        // The starting state may be larger than a default frame: the daemon's limit decides.
        let client = connection.connect(maxFrameSize: Self.maxFrameSize)
        defer { client.close() }
        let tree: Flowd_V1_Tree
        do {
            // Subscribe first: events after the snapshot are then all in the stream.
            try client.subscribe(payloads: true, timeoutMilliseconds: connection.milliseconds)
            tree = try client.tree(startState: true, timeoutMilliseconds: connection.milliseconds)
        } catch {
            fail(error)
        }
        let writer: RecordingWriter
        do {
            writer = try RecordingWriter(path: file)
            try writer.write(.tree(tree))
        } catch {
            fail("\(error)")
        }
        let records = tree.startState.records.count
        note("""
            recording flowd at \(client.path) (app \(tree.app)) to \(file) from event \(tree.lastEventSeq), \
            with the state it starts from (\(records) record\(records == 1 ? "" : "s")); Ctrl-C to stop
            """)
        var recorded = 0
        var failure: String?
        let end = streamFrames(client) { frame in
            let body: Flowd_V1_Envelope.OneOf_Body
            switch frame.body {
            case .event(let event):
                // Events emitted before the snapshot are already in it.
                guard event.seq > tree.lastEventSeq else { return true }
                body = .event(event)
            case .lagged(let lagged):
                note("lagged: \(lagged.dropped) events dropped; this recording cannot be replayed exactly")
                body = .lagged(lagged)
            default:
                return true
            }
            do {
                try writer.write(body)
            } catch {
                failure = "\(error)"
                return false
            }
            if case .event = body {
                recorded += 1
                if let count, recorded >= count { return false }
            }
            return true
        }
        writer.close()
        if let failure { fail(failure) }
        note("recorded \(recorded) events to \(file)\(end == .shutdown ? " (flowd shut down)" : "")")
    }
}
