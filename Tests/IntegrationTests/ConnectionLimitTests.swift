import FlowdTestSupport
import FlowWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The connection limits of docs/protocol.md §16 on the real binaries (issue 46, bug 5): flowd under a
/// low open-file limit refuses a flood with `LIMIT_EXCEEDED` and a log line, and `flowctl` still
/// answers.
@Suite("Connection limits")
struct ConnectionLimitTests {
    /// What a fresh connection got: admitted (its `Welcome`), or refused (the fatal `Error`).
    enum Outcome {
        case admitted(RawClient)
        case refused(Flowd_V1_Error)
        case closedUnanswered
    }

    static func connect(_ daemon: DaemonProcess, role: Flowd_V1_Role, name: String, provides: [String] = []) throws -> Outcome {
        let client = try RawClient(path: daemon.socketPath)
        // The daemon may have refused and closed before the Hello arrives: the write may fail, and
        // what it sent is read all the same.
        _ = try? client.send(RawClient.hello(role: role, name: name, provides: provides))
        while let frame = try client.receive() {
            switch frame.body {
            case .welcome: return .admitted(client)
            case .error(let error): return .refused(error)
            default: continue
            }
        }
        return .closedUnanswered
    }

    @Test func aDebugFloodFromOneProcessIsRefusedAndFlowctlStillAnswers() throws {
        // 64 descriptors: 32 connections at most, 16 for one process.
        let daemon = try DaemonProcess(arguments: ["--app", "launcher", "--no-state"], launcher: ["/usr/bin/prlimit", "--nofile=64:64", "--"])
        var held: [RawClient] = []
        var refusals: [Flowd_V1_Error] = []
        for index in 0..<40 {
            switch try Self.connect(daemon, role: .debug, name: "flood-\(index)") {
            case .admitted(let client): held.append(client)
            case .refused(let error): refusals.append(error)
            case .closedUnanswered: Issue.record("connection \(index) was closed without a word")
            }
        }
        #expect(held.count == 16, "one process holds 16 connections: half of 32")
        #expect(refusals.count == 24)
        let others = refusals.filter { !($0.code == .limitExceeded && $0.fatal && $0.message.contains("process")) }
        #expect(others.isEmpty, "refusals other than the limit of one process: \(others.map { "\($0.code) fatal \($0.fatal): \($0.message)" })")
        #expect(daemon.waitForLog("refused a connection over a limit"), "flowd logs the refusal: \(daemon.logText)")
        let tree = try flowctl(["tree"], daemon)
        #expect(tree.status == 0, "flowctl still answers: \(tree.stderr)")
        #expect(tree.stdout.contains("launcher"))
        let lines = daemon.logText.split(separator: "\n").filter { $0.contains("refused a connection over a limit") }
        #expect(lines.count <= 10, "the refusals are a few lines, not one per connection: \(lines.count)")
    }

    @Test func aHostFloodLeavesTheDebugReserveAndTheConnectionLimitHolds() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "launcher", "--no-state", "--stay-up", "--max-connections", "12", "--debug-reserve", "3",
                                                   "--max-connections-per-process", "40"])
        var hosts: [RawClient] = []
        var refused: [Flowd_V1_Error] = []
        for index in 0..<12 {
            switch try Self.connect(daemon, role: .screenHost, name: "host-\(index)", provides: ["nothing"]) {
            case .admitted(let client): hosts.append(client)
            case .refused(let error): refused.append(error)
            case .closedUnanswered: Issue.record("host \(index) was closed without a word")
            }
        }
        #expect(hosts.count == 9, "hosts take 12 less the 3 kept for debug clients")
        #expect(refused.allSatisfy { $0.code == .limitExceeded && $0.message.contains("debug") })
        let tree = try flowctl(["tree"], daemon)
        #expect(tree.status == 0, "flowctl answers through the reserve: \(tree.stderr)")
        var debug: [RawClient] = []
        for index in 0..<3 {
            if case .admitted(let client) = try Self.connect(daemon, role: .debug, name: "debug-\(index)") { debug.append(client) }
        }
        #expect(debug.count == 3)
        guard case .refused(let error) = try Self.connect(daemon, role: .debug, name: "one-too-many") else {
            Issue.record("the 13th connection is refused")
            return
        }
        #expect(error.code == .limitExceeded && error.message.contains("--max-connections 12"), "\(error.message)")
        let full = try flowctl(["tree"], daemon)
        #expect(full.status != 0)
        #expect(full.stderr.contains("LIMIT_EXCEEDED") || full.stderr.contains("limitExceeded"), "flowctl says why: \(full.stderr)")
        #expect(!full.stderr.contains("Broken pipe"), "\(full.stderr)")
    }
}
