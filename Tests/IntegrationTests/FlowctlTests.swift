import Foundation
import Testing
import FlowdTestSupport

/// The real flowctl against a real flowd.
@Suite("flowctl")
struct FlowctlTests {
    @Test func pingAnswers() throws {
        let daemon = try DaemonProcess()
        let run = try ProductRun.run("flowctl", ["ping", "--socket", daemon.socketPath, "--count", "2"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.components(separatedBy: "pong from flowd").count == 3)
    }

    @Test func noDaemonExitsWithAHint() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/flowd.sock"
        let run = try ProductRun.run("flowctl", ["ping", "--socket", path])
        #expect(run.status == 69)
        #expect(run.stderr.contains("no flowd at \(path)"))
        #expect(run.stderr.contains("start one with"))
    }

    /// A socket path longer than a Unix socket address holds: flowctl says it in flowd's words and exits
    /// with flowd's code for it (73), not a raw "File name too long".
    @Test func aSocketPathTooLongIsRefusedInFlowdsWordsWithFlowdsCode() throws {
        let path = "/tmp/" + String(repeating: "a", count: 128) + ".sock"
        #expect(path.utf8.count == 138)
        let client = try ProductRun.run("flowctl", ["ping", "--socket", path])
        let daemon = try ProductRun.run("flowd", ["--socket", path, "--no-state"])
        let words = "socket path \(path) is 138 bytes, longer than the 107 bytes a Unix socket address holds; choose a shorter path"
        #expect(daemon.status == 73 && daemon.stderr.contains(words), "flowd: \(daemon.status) \(daemon.stderr)")
        #expect(client.status == daemon.status, "flowctl exits as flowd does: \(client.status) \(client.stderr)")
        #expect(client.stderr == "flowctl: \(words)\n", "\(client.stderr)")
    }

    /// Another user served the socket first (the directory was theirs): flowctl refuses the server
    /// before it sends anything, names it and the directory's owner, and exits 77.
    @Test(.enabled(if: Impostor.possible, Impostor.reason))
    func aSocketAnotherUserServesIsRefusedBeforeAnythingIsSent() throws {
        let impostor = try Impostor()
        let run = try ProductRun.run("flowctl", ["ping", "--socket", impostor.socketPath, "--timeout", "2"])
        #expect(run.status == 77, "\(run.stderr)")
        for part in impostor.refusal { #expect(run.stderr.contains(part), "\"\(part)\" in \(run.stderr)") }
        #expect(!run.stdout.contains("pong"))
        #expect(impostor.waitForClose() == [0], "flowctl sent nothing to it: \(impostor.received)")
    }

    @Test func statsAsJSON() throws {
        let daemon = try DaemonProcess()
        let run = try ProductRun.run("flowctl", ["stats", "--json", "--socket", daemon.socketPath])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(object?["connections"] != nil)
    }

    @Test func badArgumentExitsNonZero() throws {
        let run = try ProductRun.run("flowctl", ["ping", "--count", "0"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--count"))
    }
}
