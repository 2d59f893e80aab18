import DemoApps
import DemoScreens
import FlowdTestSupport
import FlowWire
import Foundation
import ScreenKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Attached screen hosts survive drops and hangs against the real flowd (docs/protocol.md §19):
/// ScreenKit (demo-screens, and a host in this process) and the Python login screen reconnect
/// with their resume token, and the flows carry on as if nothing had happened.
@Suite("attached hosts resume")
struct ResumeTests {
    /// Seeds of the cut walk: 8 in the suite; `FLOWD_CUT_SEEDS=N` for the full count (docs/restore.md).
    static let cutSeeds = Array(UInt64(1)...max(1, ProcessInfo.processInfo.environment["FLOWD_CUT_SEEDS"].flatMap(UInt64.init) ?? 8))

    @Test("a walk-through whose connection is cut at random points reaches every result", arguments: cutSeeds)
    func walkSurvivesCuts(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        // Cut before the n-th frame flowd sends while demo-screens waits in a Ping barrier.
        var counts: [Int] = []
        for _ in 0..<3 { counts.append((counts.last ?? 0) + Int.random(in: 5...40, using: &generator)) }
        let plan = CutPlan(at: counts) { $0.hostAwaitsPong }
        let daemon = try DaemonProcess(arguments: ["--app", "launcher"], environment: ["FLOWD_PYTHON_SCREENS": "0"])
        let proxy = try CuttingProxy(daemonPath: daemon.socketPath, directory: daemon.directory, cutBefore: plan.shouldCut)

        let screens = try ProductRun.run(
            "demo-screens", ["--socket", proxy.path, "--script", demoWalkthroughPath, "--step-timeout", "20"])
        #expect(screens.status == 0, "cuts at \(counts): \(screens.stderr)\n\(screens.stdout)")
        #expect(daemon.waitForExit() == 0, "the walk ends with Quit: flowd exits 0 on its own")
        proxy.stop()
        // Each result is checked by the walk's `expect` step after it (a resumed menu shows its
        // result in the state of its new Place rather than in an Update, so no `updated:` line).
        let seen = screens.stdout.split(separator: "\n").filter { $0.hasSuffix(": seen") }
        for step in try Script(parsing: String(contentsOfFile: demoWalkthroughPath, encoding: .utf8)).steps
        where step.action == .expect {
            #expect(seen.contains { $0.hasPrefix("[line \(step.line)] ") }, "line \(step.line) not reached (cuts at \(counts))")
        }
        #expect(screens.stdout.contains(demoWalkResults.last!))
        #expect(daemon.logText.contains("app launcher finished with Login: logged in as ann (dismiss animated)"))
        #expect(proxy.cuts == counts.count, "the walk had \(plan.seen) frames to cut before")
        let reconnects = screens.stdout.split(separator: "\n").filter { $0.hasPrefix("reconnect: reconnected") }
        #expect(reconnects.count == proxy.cuts && reconnects.allSatisfy { $0.hasSuffix("resumed, its screens follow") }, "\(reconnects)")
        #expect(daemon.logText.components(separatedBy: "screen host resumed").count - 1 == proxy.cuts)
    }

    @Test("a ScreenKit host that stalls is found hung, reconnects, gets its screen back, and the flow goes on")
    func hungScreenKitHostResumes() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial", "--ack-timeout", "5", "--hang-timeout", "0.3"])
        killIfStillRunning(daemon)
        let host = try ScreenHost.connect(path: daemon.socketPath, name: "stalling", provides: [TutorialScreen.kind])
        let log = Lines()
        let deck = CardDeck()
        deck.register(on: host)
        deck.onChange = { log.append($0.logLine) }
        var events: [ReconnectEvent] = []
        host.onReconnect = { events.append($0) }

        // Not reading: the tutorial's Place waits unacknowledged, flowd's Pings go unanswered.
        try #require(daemon.waitForLog("screen host is hung"), "\(daemon.logText)")
        let runner = ScriptRunner(
            host: host, deck: deck,
            script: try Script(parsing: """
                on tutorial "Welcome" press "Next"
                on tutorial "All set" press "Done"
                """),
            stepTimeoutMilliseconds: 20_000, log: log.append)
        #expect(try runner.runInOrder() == .shutdown(.appFinished))
        #expect(daemon.waitForExit() == 0)

        // A loaded machine may stall the host once more later (a second drop, resumed too): the
        // first two events are the stall's, and every reconnection resumed.
        guard events.count >= 2, case .dropped = events[0], case .reconnected(_, resumed: true, _) = events[1] else {
            Issue.record("expected a drop, then a resumed reconnection: \(events)")
            return
        }
        for event in events {
            if case .reconnected(_, let resumed, _) = event { #expect(resumed, "\(events)") }
        }
        if case .reconnected(let connection, _, _)? = events.last { #expect(host.daemon.connectionID == connection) }
        // The stalled host never handled the first Place: its screen came with the resume.
        #expect(log.all.first == #"+ tutorial "Welcome" at stack depth 1"#, "\(log.all)")
        #expect(log.all.contains { $0.contains(#"press 1 "Done""#) }, "\(log.all)")
        #expect(daemon.logText.contains("screen host resumed"))
    }

    @Test(
        "the Python login screen, attached, is found hung while stopped, resumes after SIGCONT and finishes the login",
        .enabled(if: pythonCanRun))
    func pythonResumesAfterHang() throws {
        let daemon = try DaemonProcess(
            arguments: ["--app", "launcher", "--ack-timeout", "10", "--hang-timeout", "0.5"],
            environment: ["FLOWD_PYTHON_SCREENS": "0"])
        killIfStillRunning(daemon)
        let python = try startPythonHost(socket: daemon.socketPath, in: daemon.directory)
        python.signal(SIGSTOP)
        // Continued once flowd has given up on it (or at the latest after 30 s, so it never stays stopped).
        Thread {
            _ = daemon.waitForLog("screen host is hung", timeoutSeconds: 30)
            python.signal(SIGCONT)
        }.start()

        let (reason, log) = try runSwiftHost(socket: daemon.socketPath)
        #expect(reason == .shutdown(.appFinished), "\(log)")
        #expect(log.contains("~ menu \"flowd demos\" updated: Login: logged in as ann (dismiss animated)"), "\(log)")
        #expect(python.waitForExit() == 0, "\(python.stderr)")
        #expect(daemon.waitForExit() == 0)
        #expect(daemon.logText.contains("screen host is hung"))
        let stderr = python.stderr
        #expect(stderr.contains("after 1 try; resumed"), "\(stderr)")
        #expect(stderr.contains("- login forgotten (resumed)"), "\(stderr)")
        #expect(stderr.contains("[line 5] press Continue"), "\(stderr)")
    }

    @Test(
        "the Python login screen, attached, loses the Place of login-success to a cut, resumes and gets it again",
        .enabled(if: pythonCanRun))
    func pythonResumesAfterCut() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "launcher"], environment: ["FLOWD_PYTHON_SCREENS": "0"])
        killIfStillRunning(daemon)
        let plan = CutPlan(at: [1]) { $0.frame.place?.kind == LoginSuccessScreen.kind }
        let proxy = try CuttingProxy(daemonPath: daemon.socketPath, directory: daemon.directory, cutBefore: plan.shouldCut)
        let python = try startPythonHost(socket: proxy.path, in: daemon.directory)

        let (reason, log) = try runSwiftHost(socket: daemon.socketPath)
        #expect(reason == .shutdown(.appFinished), "\(log)")
        #expect(python.waitForExit() == 0, "\(python.stderr)")
        #expect(daemon.waitForExit() == 0)
        proxy.stop()
        #expect(proxy.cuts == 1)
        let stderr = python.stderr
        let reconnected = try #require(stderr.range(of: "after 1 try; resumed"), "\(stderr)")
        let success = try #require(stderr.range(of: #"+ login-success "Welcome, ann""#), "\(stderr)")
        #expect(reconnected.upperBound < success.lowerBound, "login-success is placed only on the new connection: \(stderr)")
        #expect(stderr.contains("- login forgotten (resumed)"), "\(stderr)")
    }
}

// MARK: Helpers

/// The login walk of the launcher: the Swift host opens it from the menu and checks the result;
/// the Python host does the login steps.
private let loginScript = """
    on menu press "Log in"
    on login press "Log in"
    on login body "Enter a user name first." type "ann"
    on login press "Log in"
    on login-success "Welcome, ann" press "Continue"
    on menu body "Login: logged in as ann (dismiss animated)" expect
    on menu press "Quit"
    """

private let loginScreenPath = repositoryRoot + "/scripts/screens/login_screen.py"

/// python3 with protobuf can run the login screen (scripts/test installs protobuf). On CI
/// (`CI=true`) the tests run regardless, and fail without it.
private let pythonCanRun = PythonScreens.check(script: loginScreenPath) == nil || ProcessInfo.processInfo.environment["CI"] == "true"

/// `login_screen.py --socket PATH`, headless on `loginScript`, once it has said it is connected.
private func startPythonHost(socket: String, in directory: String) throws -> FlowctlProcess {
    let script = directory + "/login.txt"
    try loginScript.write(toFile: script, atomically: true, encoding: .utf8)
    let python = try FlowctlProcess(
        executable: URL(fileURLWithPath: "/usr/bin/env"), ["python3", loginScreenPath, "--socket", socket],
        environment: ["DEMO_SCREENS_SCRIPT": script])
    try #require(python.waitForStderr("connected to flowd"), "\(python.stderr)")
    return python
}

/// Hosts every demo kind but the Python ones here and follows `loginScript` to its end (the
/// login steps are left to the Python host); returns how the session ended and the event log.
private func runSwiftHost(socket: String) throws -> (ExitReason, String) {
    let kinds = DemoScreens.kinds.filter { !PythonScreens.kinds.contains($0) }
    let host = try ScreenHost.connect(path: socket, name: "swift-host", provides: kinds)
    let log = Lines()
    let deck = CardDeck()
    deck.register(on: host)
    deck.onChange = { log.append($0.logLine) }
    let runner = ScriptRunner(
        host: host, deck: deck, script: try Script(parsing: loginScript), stepTimeoutMilliseconds: 20_000, log: log.append)
    let reason = try runner.runInOrder()
    return (reason, log.all.joined(separator: "\n"))
}

/// Kills flowd if it still runs after `seconds`: a host in this process that waits for a session
/// that never ends then fails (it gives up reconnecting) instead of hanging the suite.
private func killIfStillRunning(_ daemon: DaemonProcess, after seconds: Double = 90) {
    Thread {
        if daemon.waitForExit(timeoutSeconds: seconds) == nil { daemon.signal(SIGKILL) }
    }.start()
}

/// Lines of an event log, appended to by callbacks.
private final class Lines {
    var all: [String] = []
    func append(_ line: String) { all.append(line) }
}

/// Which of flowd's frames a `CuttingProxy` cuts before: the `at`-th ones (counted from 1)
/// among those `eligible` says yes to.
final class CutPlan: @unchecked Sendable {
    // @unchecked: `shouldCut` runs on the proxy's thread only; tests read `seen` after `stop()`.
    private var remaining: [Int]
    private let eligible: (CuttingProxy.Moment) -> Bool
    /// Eligible frames so far.
    private(set) var seen = 0

    init(at counts: [Int], eligible: @escaping (CuttingProxy.Moment) -> Bool) {
        remaining = counts
        self.eligible = eligible
    }

    func shouldCut(_ moment: CuttingProxy.Moment) -> Bool {
        guard eligible(moment) else { return false }
        seen += 1
        guard seen == remaining.first else { return false }
        remaining.removeFirst()
        return true
    }
}
