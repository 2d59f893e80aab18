import FlowdTestSupport
import FlowWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `flowctl watch` and `record` against a live daemon, and `flowd replay`.
@Suite("flowctl watch and record")
struct FlowctlWatchTests {
    /// Whether `sequence` holds `expected` in order (other items may come between).
    func isSubsequence(_ expected: [String], of sequence: [String]) -> Bool {
        var rest = expected[...]
        for item in sequence where item == rest.first { rest.removeFirst() }
        return rest.isEmpty
    }

    @Test func watchSeesAFullTutorialWalkInOrder() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial"])
        let watch = try FlowctlProcess(["watch", "--json", "--socket", daemon.socketPath])
        let placements = try FlowctlProcess(["watch", "--kind", "place,dismiss", "--socket", daemon.socketPath])
        #expect(watch.waitForStderr("watching flowd at \(daemon.socketPath) (app tutorial)"))
        #expect(placements.waitForStderr("watching"))

        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(name: "walker", provides: ["tutorial"])
        let welcome = try #require(try host.settle().compactMap(\.place).first)
        try host.press(0, on: welcome.screenID)  // skip: an output of the flow
        _ = try host.settle()
        try host.press(1, on: welcome.screenID)
        let done = try #require(try host.settle().compactMap(\.place).first)
        try host.press(0, on: done.screenID)
        while let frame = try host.receive() { try host.ackAll([frame]) }
        #expect(daemon.waitForExit() == 0)

        // The daemon shut down: both watchers stop by themselves with 0.
        #expect(watch.waitForExit() == 0, "\(watch.stderr)")
        #expect(placements.waitForExit() == 0)
        let events = jsonLines(watch.stdout)
        let kinds = events.compactMap { $0["kind"] as? String }
        let expected = [
            "connected", "handshake", "ack", "output", "flow-output", "output", "place", "placement-changed", "ack", "ack",
            "output", "flow-finished", "dismiss", "dismiss", "ack", "ack", "shutdown",
        ]
        #expect(isSubsequence(expected, of: kinds), "\(kinds)")
        let seqs = events.compactMap { ($0["seq"] as? NSNumber)?.uint64Value }
        #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count)
        let finished = try #require(events.first { $0["kind"] as? String == "flow-finished" })
        #expect(finished["name"] as? String == "OnboardingFlow")
        #expect(finished["flow"] as? NSNumber == 1)
        let pushed = try #require(events.first { $0["kind"] as? String == "place" })
        #expect(pushed["screen"] as? NSNumber == NSNumber(value: done.screenID))
        #expect(((pushed["placement"] as? [String: Any])?["visible"]) as? Bool == true)

        // The filtered watcher printed places and dismissals only, one line each, without colour.
        let lines = placements.stdoutLines
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.allSatisfy { $0.contains(" place ") || $0.contains(" dismiss ") }, "\(lines)")
        #expect(!placements.stdout.contains("\u{1B}["))
    }

    @Test func aStoppedWatcherLagsWithoutSlowingTheScreens() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "mirror"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["item", "tutorial"])
        let item = try #require(try host.settle().compactMap(\.place).first { $0.kind == "item" })
        let watch = try FlowctlProcess(["watch", "--json", "--payloads", "--socket", daemon.socketPath])
        #expect(watch.waitForStderr("watching"))

        // While the watcher is stopped, every press still updates both screens.
        watch.signal(SIGSTOP)
        let presses = 400
        var updates = 0
        for _ in 0..<presses {
            try host.press(0, on: item.screenID)
            updates += try host.settle().compactMap(\.update).count
        }
        #expect(updates == 2 * presses)

        // Resumed, it catches up and is told how many events it missed.
        watch.signal(SIGCONT)
        let deadline = Date().addingTimeInterval(60)
        while !watch.stdout.contains(#""kind":"lagged""#) && Date() < deadline {
            try host.press(0, on: item.screenID)
            _ = try host.settle()
        }
        let lagged = try #require(jsonLines(watch.stdout).first { $0["kind"] as? String == "lagged" }, "no lagged notice")
        let dropped = try #require((lagged["dropped"] as? NSNumber)?.intValue)
        #expect(dropped > 0)
        // Events continue after the notice, from its next seq on.
        let nextSeq = try #require((lagged["nextSeq"] as? NSNumber)?.uint64Value)
        try host.press(0, on: item.screenID)
        _ = try host.settle()
        #expect(watch.wait { text in jsonLines(text).contains { (($0["seq"] as? NSNumber)?.uint64Value ?? 0) > nextSeq } })
        let stats = try flowctl(["stats", "--json"], daemon)
        #expect(stats.stdout.contains(#""connections":"3""#), "\(stats.stdout)")  // host, watcher, this flowctl: the watcher was never dropped

        watch.signal(SIGINT)
        #expect(watch.waitForExit() == 0)
    }

    /// `watch --payloads` says every payload in words: JSON as JSON, user navigation and terminations
    /// in words, never raw protobuf bytes; and a flow's result once per line.
    @Test func watchWithPayloadsPrintsEveryPayloadReadably() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "modal"])
        let watch = try FlowctlProcess(["watch", "--payloads", "--socket", daemon.socketPath])
        let json = try FlowctlProcess(["watch", "--payloads", "--json", "--socket", daemon.socketPath])
        #expect(watch.waitForStderr("watching"))
        #expect(json.waitForStderr("watching"))
        let host = try RawClient(path: daemon.socketPath)
        let (home, detail, pushed) = try host.walkModalAppToAPushInTheModal()
        try host.back(from: pushed.screenID, phase: .commit)
        let backRun = try flowctl(["back", "\(detail.screenID)"], daemon)
        #expect(backRun.status != 0, "the root of the modal stack cannot go back")
        let terminator = try FlowctlProcess(["terminate", "\(detail.flowID)", "--socket", daemon.socketPath])
        while terminator.process.isRunning, let frame = try host.receive(timeoutMilliseconds: 2_000) {
            try host.ackAll([frame])
            if frame.dismiss != nil { break }
        }
        #expect(terminator.waitForExit() == 0)
        _ = try host.settle()
        try host.press(1, on: home.screenID)  // Finish: the app's result is "finished"
        while let frame = try host.receive() { try host.ackAll([frame]) }
        #expect(daemon.waitForExit() == 0)
        #expect(watch.waitForExit() == 0)
        #expect(json.waitForExit() == 0)

        let lines = watch.stdoutLines
        let navigation = try #require(lines.first { $0.contains(" user-navigation ") }, "\(lines)")
        #expect(navigation.hasSuffix("user back(committed) on #\(pushed.screenID)"), "\(navigation)")
        let injected = try #require(lines.first { $0.contains(" injected  ") }, "\(lines)")
        #expect(injected.hasSuffix("terminates ModalDetailFlow flow#\(detail.flowID)"), "\(injected)")
        let outputs = lines.filter { $0.contains(" output ") }
        #expect(outputs.contains { $0.contains(#"{"didPressButton":{"index":0}}"#) }, "\(outputs)")
        let finished = try #require(lines.first { $0.contains(" flow-finished ") && $0.contains("ModalFlow") }, "\(lines)")
        #expect(finished.hasSuffix("finished ModalFlow flow#1: finished"), "the result once: \(finished)")
        // JSON says the binary payloads in words too.
        let events = jsonLines(json.stdout)
        let navigationEvent = try #require(events.first { $0["kind"] as? String == "user-navigation" })
        #expect(navigationEvent["payload"] as? String == "back(committed)", "\(navigationEvent)")
        let terminateEvent = try #require(events.first { $0["kind"] as? String == "injected" })
        #expect(terminateEvent["payload"] as? String == "terminate flow \(detail.flowID)", "\(terminateEvent)")
        // Nothing but printable text: no protobuf bytes leak into the lines.
        for line in lines {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{FFFD}" }, "\(line.debugDescription)")
        }
    }

    @Test func recordThenReplayGivesTheSamePlacements() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "modal"])
        let file = daemon.directory + "/session.rec"
        let recorder = try FlowctlProcess(["record", file, "--socket", daemon.socketPath])
        #expect(recorder.waitForStderr("recording flowd at"))

        // Present, push, go back (the host's own navigation), close the modal (flowctl).
        let host = try RawClient(path: daemon.socketPath)
        let (home, detail, pushed) = try host.walkModalAppToAPushInTheModal()
        try host.back(from: pushed.screenID)
        #expect(try flowctl(["close-modal", "\(detail.screenID)"], daemon).status == 0)
        _ = try host.settle()
        // Present again and terminate it with flowctl; present a third time and finish it.
        try host.press(0, on: home.screenID)
        let second = try #require(try host.settle().compactMap(\.place).first)
        let terminator = try FlowctlProcess(["terminate", "\(second.flowID)", "--socket", daemon.socketPath])
        while terminator.process.isRunning, let frame = try host.receive(timeoutMilliseconds: 2_000) {
            try host.ackAll([frame])
            if frame.dismiss != nil { break }
        }
        #expect(terminator.waitForExit() == 0)
        _ = try host.settle()
        try host.press(0, on: home.screenID)
        let third = try #require(try host.settle().compactMap(\.place).first)
        #expect(try flowctl(["inject", "\(third.screenID)", #"{"didPressButton":{"index":1}}"#], daemon).status == 0)
        _ = try host.settle()

        // Stop the recorder with SIGINT while the daemon still runs: the file is complete.
        recorder.signal(SIGINT)
        #expect(recorder.waitForExit() == 0, "\(recorder.stderr)")
        #expect(recorder.stderr.contains("events to \(file)"))

        var replay = try ProductRun.run("flowd", ["replay", file])
        #expect(replay.status == 0, "\(replay.stdout) \(replay.stderr)")
        #expect(replay.stdout.contains("same placements ("), "\(replay.stdout)")
        let count = Int(replay.stdout.split(separator: "(")[1].split(separator: ")")[0]) ?? 0
        #expect(count >= 12, "\(replay.stdout)")

        // Another app does not start where the recording starts.
        replay = try ProductRun.run("flowd", ["replay", file, "--app", "deep-stack"])
        #expect(replay.status == 1)
        #expect(replay.stdout.contains("another state"), "\(replay.stdout)")
        // Not a recording at all.
        for (junk, contents) in [("junk.rec", "hello"), ("text.rec", "a text file, long enough to have a length prefix\n")] {
            let path = daemon.directory + "/" + junk
            _ = FileManager.default.createFile(atPath: path, contents: Data(contents.utf8))
            replay = try ProductRun.run("flowd", ["replay", path])
            #expect(replay.status == 65, "not a recording is not a difference")
            #expect(replay.stderr.contains("\(path) is not a flowctl recording"), "\(replay.stderr)")
            // Advice for peers of the wire protocol is not advice for a file.
            #expect(!replay.stderr.contains("max_frame_size") && !replay.stderr.contains("recorder was killed"), "\(replay.stderr)")
        }
        // A recording cut short is one, damaged at its end.
        let cut = daemon.directory + "/cut.rec"
        let whole = try #require(FileManager.default.contents(atPath: file))
        _ = FileManager.default.createFile(atPath: cut, contents: whole.dropLast(3))
        replay = try ProductRun.run("flowd", ["replay", cut])
        #expect(replay.status == 65)
        #expect(replay.stderr.contains("ends in the middle of a frame"), "\(replay.stderr)")
    }

    @Test func recordStopsWhenTheDaemonShutsDownAndReplaysAWalk() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial"])
        let file = daemon.directory + "/walk.rec"
        let recorder = try FlowctlProcess(["record", file, "--socket", daemon.socketPath])
        #expect(recorder.waitForStderr("recording"))
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["tutorial"])
        let welcome = try #require(try host.settle().compactMap(\.place).first)
        try host.press(1, on: welcome.screenID)
        let done = try #require(try host.settle().compactMap(\.place).first)
        try host.press(0, on: done.screenID)
        while let frame = try host.receive() { try host.ackAll([frame]) }
        #expect(daemon.waitForExit() == 0)
        #expect(recorder.waitForExit() == 0)
        #expect(recorder.stderr.contains("(flowd shut down)"))
        let replay = try ProductRun.run("flowd", ["replay", file, "--app", "tutorial"])
        #expect(replay.status == 0, "\(replay.stdout) \(replay.stderr)")
        // place done, covered welcome, dismiss done, dismiss welcome.
        #expect(replay.stdout.contains("same placements (4); 2 inputs replayed"), "\(replay.stdout)")
    }
}

extension FlowctlWatchTests {
    @Test func aSignalledShutdownReplaysWithScreensThatNeverHadAHost() throws {
        // No host ever connects: the tutorial's screen waits, then SIGTERM unwinds it.
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial"])
        let file = daemon.directory + "/shutdown.rec"
        let recorder = try FlowctlProcess(["record", file, "--socket", daemon.socketPath])
        #expect(recorder.waitForStderr("recording flowd at"))
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        #expect(recorder.waitForExit() == 0, "\(recorder.stderr)")
        let replay = try ProductRun.run("flowd", ["replay", file, "--app", "tutorial"])
        #expect(replay.status == 0, "\(replay.stdout) \(replay.stderr)")
        #expect(replay.stdout.contains("same placements (1)"), "\(replay.stdout)")
    }
}
