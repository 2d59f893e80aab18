import DemoScreens
import FlowWire
import FlowdTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// flowd restarts where it was (docs/restore.md): SIGKILLed at random moments of the demo walk and
/// started again with the same journal, it rebuilds the tree as it was at its last commit, the
/// attached demo-screens reconnects and gets its screens back, and the walk reaches every result
/// of a clean run. `FLOWD_DAEMON_KILLS=N` (and `FLOWD_DAEMON_KILL_SEED=S`) for the full count
/// (`scripts/kill-flowd`).
@Suite("flowd restarts where it was")
struct DaemonRestartTests {
    static let environment = ProcessInfo.processInfo.environment
    static let kills = max(1, environment["FLOWD_DAEMON_KILLS"].flatMap(Int.init) ?? 4)
    static let seeds: [UInt64] = environment["FLOWD_DAEMON_KILL_SEED"].flatMap(UInt64.init).map { [$0] } ?? [3, 8]

    @Test("flowd SIGKILLed during the walk restores the tree and the walk reaches every result", arguments: seeds)
    func walkSurvivesDaemonKills(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let steps = try Script(parsing: String(contentsOfFile: demoWalkthroughPath, encoding: .utf8)).steps
        // Not in the last steps: the walk must not end before the last kill.
        let moments = (0..<Self.kills).map { _ in Int.random(in: 1..<(steps.count - 8), using: &generator) }.sorted()
        // Each flowd compacts its journal after a random few inputs: checkpoints land at random points
        // of the walk, and kills land between them (docs/restore.md, "Long sessions").
        var arguments: [String] { ["--app", "launcher", "--compact-after", "\(Int.random(in: 1...12, using: &generator))"] }
        let environment = ["FLOWD_PYTHON_SCREENS": "0"]
        var daemon = try DaemonProcess(arguments: arguments, environment: environment, directory: directory)

        let output = directory + "/demo-screens.out"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let screens = Process()
        screens.executableURL = productsDirectory.appendingPathComponent("demo-screens")
        screens.arguments = ["--socket", daemon.socketPath, "--script", demoWalkthroughPath, "--step-timeout", "30"]
        screens.standardOutput = FileHandle(forWritingAtPath: output)
        screens.standardError = FileHandle(forWritingAtPath: output)
        try screens.run()
        defer { if screens.isRunning { kill(screens.processIdentifier, SIGKILL) } }

        var restored = 0
        var logs: [String] = []
        var finishedBeforeKill = false
        for (index, moment) in moments.enumerated() {
            let deadline = ContinuousClock.now + .seconds(60)
            while screens.isRunning, Self.stepsDone(output) < moment {
                guard ContinuousClock.now < deadline else {
                    Issue.record("the walk did not reach step \(moment) in 60 s: \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
                    return
                }
                usleep(2_000)
            }
            usleep(UInt32.random(in: 0...15_000, using: &generator))
            // The walk is quick: it may have ended (and flowd with it) since.
            guard screens.isRunning, daemon.process.isRunning else { break }
            // Every other kill is checked against the tree: the walk is paused (demo-screens
            // stopped), what it sent is handled and committed, and the tree is read just before.
            let checked = index % 2 == 0
            var before: [String] = []
            if checked {
                // Stopped, it writes nothing more; the tree request is then read after what it
                // wrote (in the same loop iteration or a later one), and answered after the commit.
                kill(screens.processIdentifier, SIGSTOP)
                try #require(waitUntilStopped(screens.processIdentifier), "demo-screens did not stop")
                guard daemon.process.isRunning, let shape = try? Self.shape(of: daemon) else {
                    kill(screens.processIdentifier, SIGCONT)
                    break
                }
                before = shape
            }
            kill(daemon.process.processIdentifier, SIGKILL)
            let status = daemon.waitForExit()
            logs.append(daemon.logText)
            // The app finished before the kill landed: the walk had ended (a new flowd would start fresh).
            if status == 0 || daemon.logText.contains("app launcher finished") {
                finishedBeforeKill = status != 0
                kill(screens.processIdentifier, SIGCONT)
                break
            }
            daemon = try DaemonProcess(arguments: arguments, environment: environment, directory: directory)
            #expect(daemon.waitForLog("restored the app from its journal"), "\(daemon.logText)\nthe daemons before:\n\(logs.joined(separator: "\n--\n"))")
            if checked {
                let after = try Self.shape(of: daemon)
                #expect(after == before, "kill \(index + 1) at step \(moment): the restored tree is the one before the kill")
                kill(screens.processIdentifier, SIGCONT)
            }
            restored += 1
        }

        screens.waitUntilExit()
        let log = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        #expect(screens.terminationStatus == 0, "seed \(seed), kills at steps \(moments): \(log)\n\(daemon.logText)")
        let status = daemon.waitForExit()
        #expect(status == 0 || finishedBeforeKill, "the walk ends with Quit: flowd exits 0 on its own")
        #expect(daemon.logText.contains("app launcher finished with Login: logged in as ann (dismiss animated)"), "\(daemon.logText)")
        let seen = log.split(separator: "\n").filter { $0.hasSuffix(": seen") }
        for step in steps where step.action == .expect {
            #expect(seen.contains { $0.hasPrefix("[line \(step.line)] ") }, "line \(step.line) not reached (kills at steps \(moments))")
        }
        #expect(restored >= min(2, moments.count), "kills landed before the walk ended: \(restored) of \(moments.count)")
        let checkpoints = (logs + [daemon.logText]).map { $0.components(separatedBy: "compacted the journal to a checkpoint").count - 1 }.reduce(0, +)
        let refusals = (logs + [daemon.logText]).map { $0.components(separatedBy: "the journal was not compacted").count - 1 }.reduce(0, +)
        #expect(checkpoints > 0, "the journal was compacted during the walk")
        print("flowd restarts: \(restored) of \(moments.count) kills landed before the walk ended (seed \(seed)); \(checkpoints) checkpoints taken, \(refusals) refused")
        let reconnects = log.split(separator: "\n").filter { $0.hasPrefix("reconnect: reconnected") }
        // Kills close together are one reconnection for demo-screens.
        #expect(!reconnects.isEmpty && reconnects.allSatisfy { $0.hasSuffix("a fresh start") }, "demo-screens came back as a new host: \(reconnects)")
    }

    @Test("a socket-activated flowd SIGKILLed mid-walk and started again on the same socket: the host is queued, not refused, and the walk goes on")
    func socketActivatedRestartQueuesTheHost() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/flowd.sock"
        // The test holds the listening socket, as systemd does: it stays open while flowd is down.
        let listening = try listenOnUnixSocket(path: path, backlog: 16)
        defer { close(listening) }
        let arguments = ["--app", "launcher", "--state", directory + "/launcher.journal"]
        let environment = ["FLOWD_PYTHON_SCREENS": "0"]
        var daemon = try startActivatedFlowd(socket: listening, arguments: arguments, environment: environment)
        try #require(daemon.waitForLog("listening on"), "\(daemon.logText)")

        let output = directory + "/demo-screens.out"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let screens = Process()
        screens.executableURL = productsDirectory.appendingPathComponent("demo-screens")
        screens.arguments = ["--socket", path, "--script", demoWalkthroughPath, "--step-timeout", "30"]
        screens.standardOutput = FileHandle(forWritingAtPath: output)
        screens.standardError = FileHandle(forWritingAtPath: output)
        try screens.run()
        defer { if screens.isRunning { kill(screens.processIdentifier, SIGKILL) } }

        // Mid-walk: SIGKILL, and nobody serves for a while — long enough for demo-screens to try.
        let deadline = ContinuousClock.now + .seconds(60)
        while screens.isRunning, Self.stepsDone(output) < 20, ContinuousClock.now < deadline { usleep(2_000) }
        try #require(screens.isRunning, "the walk ended before the kill: \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
        daemon.signal(SIGKILL)
        _ = daemon.waitForExit()
        // A barrier, not a pause: the host saw flowd go and is reconnecting, into the socket that
        // nobody serves until the next flowd starts.
        let noticed = ContinuousClock.now + .seconds(10)
        var whileDown = ""
        while !whileDown.contains("reconnect: connection to flowd lost"), ContinuousClock.now < noticed {
            usleep(5_000)
            whileDown = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        }
        try #require(whileDown.contains("reconnect: connection to flowd lost"), "the host did not notice flowd going: \(whileDown)")
        #expect(!whileDown.contains("gave up"), "the host keeps trying while flowd is down: \(whileDown)")
        daemon = try startActivatedFlowd(socket: listening, arguments: arguments, environment: environment)
        #expect(daemon.waitForLog("restored the app from its journal"), "\(daemon.logText)")

        screens.waitUntilExit()
        let log = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        #expect(screens.terminationStatus == 0, "\(log)\n\(daemon.logText)")
        #expect(daemon.waitForExit() == 0, "the walk ends with Quit: flowd exits 0 on its own")
        #expect(daemon.logText.contains("app launcher finished with Login: logged in as ann (dismiss animated)"), "\(daemon.logText)")
        #expect(log.contains("reconnect: reconnected") && !log.contains("gave up"), "\(log)")
        #expect(FileManager.default.fileExists(atPath: path), "the socket stays: systemd's, not flowd's")
    }

    /// Steps demo-screens started (its `[line N]` lines).
    static func stepsDone(_ path: String) -> Int {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
        return Set(text.split(separator: "\n").compactMap { line -> Substring? in
            guard line.hasPrefix("[line ") else { return nil }
            return line.dropFirst(6).prefix { $0 != "]" }
        }).count
    }

    /// The flows and the navigation, without hosts, serials or processes.
    static func shape(of daemon: DaemonProcess) throws -> [String] {
        let debug = try RawClient(path: daemon.socketPath)
        try debug.handshake(role: .debug, name: "restart-check")
        return try debug.tree().shapeLines
    }
}
