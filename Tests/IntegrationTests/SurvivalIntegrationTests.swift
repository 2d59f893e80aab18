import FlowSocket
import FlowWire
import FlowdTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Screens survive, from the outside: the real flowd, raw hosts that drop and resume, a real
/// demo-screens host that hangs (SIGSTOP), spawned screen processes killed with SIGKILL
/// (docs/restore.md).
@Suite("screens survive (socket level)", .serialized)
struct SurvivalIntegrationTests {
    /// `flowctl stats --json` as a dictionary of counters.
    static func stats(_ daemon: DaemonProcess) throws -> [String: Int] {
        let run = try ProductRun.run("flowctl", ["stats", "--json", "--socket", daemon.socketPath])
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] ?? [:]
        return object.compactMapValues { ($0 as? String).flatMap(Int.init) ?? ($0 as? Int) }
    }

    @Test func aDroppedHostResumesWithItsTokenAndTheWalkGoesOn() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial", "--stay-up"])
        var host: RawClient? = try RawClient(path: daemon.socketPath)
        let welcome = try #require(try host?.handshake(provides: ["tutorial"]))
        #expect(!welcome.resumeToken.isEmpty && welcome.resumeGraceMs == 5_000 && !welcome.resumed)
        let first = try #require(try host?.settle().compactMap(\.place).first)
        _ = try host?.press(1, on: first.screenID)  // Next: pushes the second page
        let second = try #require(try host?.settle().compactMap(\.place).first)
        host = nil  // the connection drops (closed without Shutdown)
        #expect(daemon.waitForLog("holding its screens for it to resume"))
        #expect(try Self.stats(daemon)["screensHeld"] == 2)

        let back = try RawClient(path: daemon.socketPath)
        let resumed = try back.handshake(provides: ["tutorial"], resumeToken: welcome.resumeToken)
        #expect(resumed.resumed && resumed.resumeToken != welcome.resumeToken)
        let places = try back.settle().compactMap(\.place)
        #expect(places.map(\.screenID) == [first.screenID, second.screenID], "both pages, bottom first")
        #expect(places.map(\.placement.visible) == [false, true])
        #expect(places.allSatisfy { !$0.animated })
        let stats = try Self.stats(daemon)
        #expect(stats["hostsResumed"] == 1 && stats["flows"] == 1 && stats["screens"] == 2 && stats["screensHeld"] == nil)
        // The walk goes on: back from the second page, as a person would.
        var navigation = Flowd_V1_UserNavigation()
        navigation.screenID = second.screenID
        navigation.action = .back(Flowd_V1_Back())
        try back.send(.userNavigation(navigation))
        #expect(try back.settle().compactMap(\.dismiss).map(\.screenID) == [second.screenID])
        // The old token is spent.
        let again = try RawClient(path: daemon.socketPath)
        try again.send(RawClient.hello(provides: ["tutorial"], resumeToken: welcome.resumeToken))
        let refused = try again.receiveUntilClosed()
        #expect(refused.compactMap(\.error).map(\.code) == [.resumeRefused])
        #expect(refused.compactMap(\.error).first?.message.contains("already used") == true)
    }

    @Test func aWrongTokenIsRefusedAndChangesNothingAndPastTheGraceTheScreensGoToTheNextHost() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial", "--stay-up", "--resume-grace", "3"])
        var host: RawClient? = try RawClient(path: daemon.socketPath)
        let welcome = try #require(try host?.handshake(provides: ["tutorial"]))
        _ = try host?.settle()
        host = nil
        #expect(daemon.waitForLog("holding its screens"))
        let forged = try RawClient(path: daemon.socketPath)
        try forged.send(RawClient.hello(provides: ["tutorial"], resumeToken: welcome.resumeToken + "0"))
        let frames = try forged.receiveUntilClosed()
        #expect(frames.compactMap(\.error).map(\.code) == [.resumeRefused])
        #expect(frames.compactMap(\.error).first?.fatal == true)
        #expect(try Self.stats(daemon)["screensHeld"] == 1, "nothing changed")
        #expect(daemon.waitForLog("did not resume in time; its screens wait for the next host of their kinds"))
        // A new host of the kind, without a token, gets the screen where the user was; the flow never ended.
        let next = try RawClient(path: daemon.socketPath)
        try next.handshake(provides: ["tutorial"])
        #expect(try next.settle().compactMap(\.place).count == 1)
        #expect(!daemon.logText.contains("app tutorial ended"))
    }

    @Test func aHungHostIsFoundWithinTheHangTimeoutAndItsScreensAreHeld() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial", "--stay-up", "--hang-timeout", "1"])
        let screens = Process()
        screens.executableURL = productsDirectory.appendingPathComponent("demo-screens")
        screens.arguments = ["--socket", daemon.socketPath]
        screens.standardInput = FileHandle.nullDevice
        screens.standardOutput = FileHandle.nullDevice
        screens.standardError = FileHandle.nullDevice
        try screens.run()
        defer {
            // SIGKILL: the child inherits the test runner's blocked signal mask, so SIGTERM would stay
            // pending; it used to exit on its own when flowd cut it off, but now it reconnects.
            kill(screens.processIdentifier, SIGKILL)
            screens.waitUntilExit()
        }
        #expect(daemon.waitForLog("handshake"))
        let debug = try RawClient(path: daemon.socketPath)
        try debug.handshake(role: .debug)
        // Wait until the first page is acknowledged (a poll with a deadline: failing to get there fails
        // the test), then stop the host and give it work.
        var acknowledged = false
        for _ in 0..<500 where !acknowledged {
            acknowledged = try Self.stats(daemon)["pendingAcks"] == nil
            if !acknowledged { usleep(20_000) }
        }
        try #require(acknowledged, "the first page was never acknowledged")
        kill(screens.processIdentifier, SIGSTOP)
        var inject = Flowd_V1_InjectOutput()
        inject.screenID = 2
        inject.payload = .json(Data(#"{"didPressButton":{"index":1}}"#.utf8))
        try debug.send(.injectOutput(inject))
        #expect(daemon.waitForLog("screen host is hung"))
        let stats = try Self.stats(daemon)
        #expect(stats["hostsHung"] == 1)
        #expect(stats["screensHeld"] == 2, "both pages held for the host to resume")
        #expect(stats["flows"] == 1, "the flow was not told")
    }

    @Test func aScreenThatCrashesAtStartUpIsRestartedNTimesThenTheFlowIsTold() throws {
        // `false` exits 1 at once: a screen process that crashes before its handshake, every time.
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial", "--spawn-screens", "false", "--restart-screens", "3/10"])
        #expect(daemon.waitForExit() == 0, "the app ends (its only screen is lost) and flowd exits")
        let log = daemon.logText
        #expect(log.components(separatedBy: "spawned screen process").count - 1 == 4, "the first start and 3 restarts:\n\(log)")
        #expect(log.contains("restart policy gave up"))
        #expect(log.contains("app tutorial ended: screen"))
    }

    @Test(arguments: [
        (["--restart-screens", "often"], "--restart-screens must be never, N or N/SECONDS"),
        (["--restart-screens", "5/0"], "--restart-screens must be never, N or N/SECONDS"),
        (["--resume-grace=-1"], "--resume-grace must be between 0 and 3600"),
        (["--hang-timeout", "1.5", "--ack-timeout", "2"], "--hang-timeout must be 0 (off) or such that a hang is found before the ack timeout"),
        (["--hang-timeout=-1"], "--hang-timeout must be 0 (off)"),
    ])
    func badSurvivalArgumentsSayWhatIsWrong(arguments: [String], message: String) throws {
        let run = try ProductRun.run("flowd", arguments)
        #expect(run.status == 64)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test(arguments: [
        (["--app", "tutorial", "--lose-with-host", "nope"], "--lose-with-host: app tutorial has no kind nope; its kinds are"),
        (["--app", "tutorial", "--lose-with-host", ","], "--lose-with-host needs kinds, comma-separated, or all; got ','"),
    ])
    func badLoseWithHostArgumentsSayWhatIsWrong(arguments: [String], message: String) throws {
        let run = try ProductRun.run("flowd", ["--no-state", "--socket", makeTemporaryDirectory() + "/flowd.sock"] + arguments)
        #expect(run.status == 64)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }
}
