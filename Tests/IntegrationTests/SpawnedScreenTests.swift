import FlowdTestSupport
import FlowWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Screens as real processes: spawned by flowd's factory (demo-screens, written
/// with ScreenKit) or attached; killed, stopped and flooding on purpose.
@Suite("screen processes")
struct SpawnedScreenTests {
    /// Writes a demo-screens script into the daemon's directory.
    private func script(_ text: String, in directory: String) throws -> String {
        let path = directory + "/walk.txt"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func tutorialWalkWithSpawnedScreenProcesses() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let walk = try script("""
            on tutorial "Welcome" press "Skip"
            on tutorial "Welcome" press "Next"
            on tutorial "All set" press "Done"
            """, in: directory)
        let daemon = try DaemonProcess(
            // A long spawn grace: a slow machine must not turn a late exit into SIGTERM.
            arguments: ["--app", "tutorial", "--spawn-screens", "demo-screens", "--spawn-grace", "30", "--screen-env", "DEMO_SCREENS_SCRIPT"],
            environment: ["DEMO_SCREENS_SCRIPT": walk], directory: directory)
        #expect(daemon.waitForExit() == 0)
        let log = daemon.logText
        #expect(log.components(separatedBy: "spawned screen process").count - 1 == 2)
        #expect(log.components(separatedBy: "how=status 0").count - 1 == 2, "\(log)")
        #expect(log.contains("app output: didSkip"))
        #expect(log.contains("app tutorial finished with completed; unwound 2 screens"))
    }

    /// Starts the tutorial with idle spawned screens and a debug client; returns both and the baseline.
    /// `restart` is the `--restart-screens` policy (nil: the default).
    private func idleTutorial(restart: String? = nil) throws -> (DaemonProcess, RawClient, Flowd_V1_Stats) {
        let policy = restart.map { ["--restart-screens", $0] } ?? []
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial", "--stay-up", "--spawn-screens", "demo-screens", "--spawn-grace", "0.5"] + policy)
        let debug = try RawClient(path: daemon.socketPath)
        try debug.handshake(role: .debug, name: "test-debug")
        _ = try debug.stats(until: { $0.screens == 1 && $0.childProcesses == 1 && $0.pendingAcks == 0 })
        return (daemon, debug, try debug.stats())
    }

    private func spawnedPID(_ debug: RawClient) throws -> Int32 {
        let spawned = try debug.tree().connections.filter(\.spawned)
        try #require(spawned.count == 1)
        return spawned[0].pid
    }

    @Test func byDefaultAKilledScreenProcessIsStartedAgainAndItsFlowGoesOn() throws {
        let (daemon, debug, shown) = try idleTutorial()
        #expect(shown.flows == 1)
        let first = try spawnedPID(debug)
        kill(first, SIGKILL)
        // A new process for the same screen, handshaken, its Place acknowledged; the flow never heard of it.
        let after = try debug.stats(until: { $0.screenRestarts == 1 && $0.childProcesses == 1 && $0.pendingAcks == 0 && $0.connections == 2 })
        #expect(after.flows == 1)
        #expect(after.screens == 1)
        #expect(try spawnedPID(debug) != first)
        #expect(daemon.waitForLog("screen process crashed; restarting it"))
        #expect(!daemon.logText.contains("app tutorial ended"))
        try debug.ping()
    }

    @Test func withRestartsOffAScreenProcessKilledWhileShownEndsItsFlow() throws {
        let (daemon, debug, shown) = try idleTutorial(restart: "never")
        #expect(shown.flows == 1)
        kill(try spawnedPID(debug), SIGKILL)
        let after = try debug.stats(until: { $0.childProcesses == 0 && $0.connections == 1 && $0.flows == 0 })
        #expect(after.flows == 0)
        #expect(after.screens == 0)
        #expect(after.childProcesses == 0)
        #expect(after.connections == 1)
        #expect(after.pendingAcks == 0)
        #expect(after.openDescriptors == shown.openDescriptors - 3, "the spawned screen's socket and its output pipes are closed")
        #expect(after.libuvHandles == shown.libuvHandles - 4, "its connection, output pipes and process handles are closed")
        #expect(daemon.waitForLog("app tutorial ended: screen"))
        try debug.ping()  // the daemon keeps serving
    }

    @Test func screenProcessKilledBetweenDismissAndAck() throws {
        let (daemon, debug, shown) = try idleTutorial()
        let pid = try spawnedPID(debug)
        let flow = try #require(try debug.tree().rootFlow.id as UInt64?)
        kill(pid, SIGSTOP)  // it will not ack the Dismiss
        var terminate = Flowd_V1_TerminateFlow()
        terminate.flowID = flow
        let seq = try debug.send(.terminateFlow(terminate))
        // The barrier: once the Pong is here, the Dismiss was queued to the stopped process.
        let beforePong = try debug.ping()
        #expect(!beforePong.contains { $0.replyTo == seq }, "the termination waits for the dismissal: \(beforePong)")
        kill(pid, SIGKILL)
        // The dismissal completes as host-lost, the termination answers, and everything returns to zero.
        var answered = false
        while let frame = try debug.receive() {
            if frame.replyTo == seq, case .commandResult = frame.body {
                answered = true
                break
            }
        }
        #expect(answered)
        let after = try debug.stats(until: { $0.childProcesses == 0 && $0.connections == 1 })
        #expect(after.flows == 0)
        #expect(after.screens == 0)
        #expect(after.childProcesses == 0)
        #expect(after.pendingAcks == 0)
        #expect(after.openDescriptors == shown.openDescriptors - 3)
        #expect(after.libuvHandles == shown.libuvHandles - 4)
        #expect(daemon.process.isRunning)
    }

    @Test func stoppedHostIsCutOffWhileTheOtherKeepsItsPlacements() throws {
        // The stopped host's screen is lost with it (by default it would wait for the next mirror host).
        let daemon = try DaemonProcess(arguments: ["--app", "mirror", "--max-frame-size", "8192", "--write-queue-limit", "65536", "--hang-timeout", "0",
                                                   "--lose-with-host", "all"])
        let reader = try RawClient(path: daemon.socketPath)
        try reader.handshake(provides: ["item"])
        // A real screen process hosts the mirror tab; then it is stopped.
        let host = Process()
        host.executableURL = productsDirectory.appendingPathComponent("demo-screens")
        host.arguments = ["--socket", daemon.socketPath, "--quiet"]
        host.standardOutput = FileHandle.nullDevice
        let hostErrors = daemon.directory + "/demo-screens.err"
        _ = FileManager.default.createFile(atPath: hostErrors, contents: nil)
        host.standardError = FileHandle(forWritingAtPath: hostErrors)
        try host.run()
        defer {
            kill(host.processIdentifier, SIGKILL)
            host.waitUntilExit()
        }
        let item = try #require(try reader.settle().compactMap(\.place).first)
        let debug = try RawClient(path: daemon.socketPath)
        try debug.handshake(role: .debug)
        // Both screens hosted and acknowledged before the host is stopped (a poll with a deadline:
        // not getting there fails the test).
        let deadline = ContinuousClock.now + .seconds(10)
        var settled = false
        while !settled, ContinuousClock.now < deadline {
            let tree = try debug.tree()
            settled = tree.connections.filter({ $0.role == "screen-host" && $0.screens == 1 }).count == 2 && tree.stats.pendingAcks == 0
            if !settled { usleep(10_000) }
        }
        try #require(settled, "both screens were never hosted and acknowledged")
        kill(host.processIdentifier, SIGSTOP)

        var presses = 0
        while !daemon.logText.contains("stopped reading"), presses < 2_000 {
            try reader.press(0, on: item.screenID)
            presses += 1
            // Every press is answered with this screen's update before the barrier: never delayed.
            #expect(try reader.settle().compactMap(\.update).count == 1)
        }
        #expect(daemon.waitForLog("disconnecting a client that stopped reading"), "\(presses) presses; \((try? String(contentsOfFile: hostErrors, encoding: .utf8)) ?? "")")
        let after = try debug.stats(until: { $0.screens == 1 })
        #expect(after.screens == 1, "the stopped host's screen is lost, the reader's stays")
        try reader.press(0, on: item.screenID)
        #expect(try reader.settle().compactMap(\.update).count == 1)
    }

    @Test func floodOfOutputsDoesNotStarveAnotherHost() throws {
        // A large write limit: this is about fairness, not about cutting off a slow reader
        // (each output sends the other host a 2 KiB update it reads in a debug build).
        let daemon = try DaemonProcess(arguments: ["--app", "mirror", "--write-queue-limit", "1073741824", "--ack-timeout", "600", "--hang-timeout", "0"])
        let flooder = try RawClient(path: daemon.socketPath)
        try flooder.handshake(provides: ["item"])
        let other = try RawClient(path: daemon.socketPath)
        try other.handshake(provides: ["tutorial"])
        let item = try #require(try flooder.settle().compactMap(\.place).first)
        _ = try other.settle()

        // 100,000 outputs in one stream, written from one thread while another
        // reads (and drops) what the flooder gets back, as a real host would.
        var flood: [UInt8] = []
        var output = Flowd_V1_Output()
        output.screenID = item.screenID
        output.payload = .json(Data(#"{"didPressButton":{"index":0}}"#.utf8))
        let count = 100_000
        for seq in 1...count {
            try FrameEncoder.append(Flowd_V1_Envelope(.output(output), seq: UInt64(100 + seq)), to: &flood)
        }
        let bytes = flood
        let descriptor = flooder.socket.descriptor
        let threads = DispatchGroup()
        threads.enter()
        Thread {
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
                if written <= 0 { break }
                offset += written
            }
            threads.leave()
        }.start()
        threads.enter()
        Thread {
            var sink = [UInt8](repeating: 0, count: 65_536)
            while sink.withUnsafeMutableBytes({ recv(descriptor, $0.baseAddress!, $0.count, 0) }) > 0 {}
            threads.leave()
        }.start()

        // The other host's barrier comes back long before the flood is handled:
        // it saw only a part of the updates the flood causes on its mirror screen.
        let updatesBeforePong = try other.settle().compactMap(\.update).count
        #expect(updatesBeforePong < count / 2, "the other host waited for \(updatesBeforePong) of \(count) outputs")
        #expect(daemon.process.isRunning)

        Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
        threads.wait()
    }
}
