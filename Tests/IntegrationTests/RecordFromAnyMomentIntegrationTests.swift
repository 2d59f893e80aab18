import FlowdTestSupport
import FlowWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `flowctl record` started on a daemon already in use, and `flowd replay` of what it wrote: the
/// recording carries the state it starts from, so the replay rebuilds it and finds the same
/// placements — with a journal and with `--no-state`. A damaged starting state is a damaged
/// recording (exit 65), not a difference (exit 1).
@Suite("Recordings from any moment, through flowctl and flowd")
struct RecordFromAnyMomentIntegrationTests {
    @Test(arguments: [[], ["--no-state"]])
    func aRecordingStartedOnADaemonInUseReplaysToTheSamePlacements(_ state: [String]) throws {
        let daemon = try DaemonProcess(arguments: ["--app", "modal"] + state)
        let file = daemon.directory + "/mid.rec"
        // In use before the recording: a modal presented and a screen pushed in it.
        let host = try RawClient(path: daemon.socketPath)
        let (home, detail, pushed) = try host.walkModalAppToAPushInTheModal()

        let recorder = try FlowctlProcess(["record", file, "--socket", daemon.socketPath])
        #expect(recorder.waitForStderr("with the state it starts from ("), "\(recorder.stderr)")
        try host.back(from: pushed.screenID)  // the pushed screen is dismissed
        #expect(try flowctl(["close-modal", "\(detail.screenID)"], daemon).status == 0)
        _ = try host.settle()
        try host.press(0, on: home.screenID)  // a new modal is placed
        let again = try #require(try host.settle().compactMap(\.place).first)
        #expect(again.screenID > pushed.screenID)
        // The daemon's stop ends the recording once every event before it is in the file (a SIGINT to
        // the recorder would stop it at once, with what had arrived by then).
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        #expect(recorder.waitForExit() == 0, "\(recorder.stderr)")
        #expect(recorder.stderr.contains("(flowd shut down)"), "\(recorder.stderr)")

        var replay = try ProductRun.run("flowd", ["replay", file])
        #expect(replay.status == 0, "\(replay.stdout) \(replay.stderr)")
        #expect(replay.stdout.contains("same placements ("), "\(replay.stdout)")
        // The back, the modal closed, the press, and the shutdown that terminated every flow.
        #expect(replay.stdout.contains("4 inputs replayed against app modal"), "\(replay.stdout)")

        // Its starting state damaged: a damaged recording, told apart from a difference by the exit code.
        let damaged = daemon.directory + "/damaged.rec"
        _ = FileManager.default.createFile(atPath: damaged, contents: Data(try Self.withAnUnknownRecord(file)))
        replay = try ProductRun.run("flowd", ["replay", damaged])
        #expect(replay.status == 65, "\(replay.stdout) \(replay.stderr)")
        #expect(replay.stderr.contains("\(damaged) is damaged: record"), "\(replay.stderr)")
        #expect(replay.stderr.contains("of the state it starts from has kind 99"), "\(replay.stderr)")
        replay = try ProductRun.run("flowd", ["replay", file, "--app", "deep-stack"])
        #expect(replay.status == 1, "another app is a difference")
        #expect(replay.stdout.contains("another state than app deep-stack"), "\(replay.stdout)")
    }

    /// The recording at `path` with a record of kind 99 added to its starting state.
    static func withAnUnknownRecord(_ path: String) throws -> [UInt8] {
        var decoder = FrameDecoder(maxFrameSize: 256 << 20)
        decoder.append(Array(try #require(FileManager.default.contents(atPath: path))))
        var bytes: [UInt8] = []
        while let envelope = try decoder.nextEnvelope() {
            var envelope = envelope
            if case .tree(var tree) = envelope.body {
                #expect(tree.hasStartState)
                var record = Flowd_V1_StateRecord()
                record.kind = 99
                tree.startState.records.append(record)
                envelope.body = .tree(tree)
            }
            bytes += try FrameEncoder.encode(envelope, maxFrameSize: 256 << 20)
        }
        return bytes
    }
}
