import DemoApps
import FlowApp
import FlowDaemon
import FlowDaemonTesting
import FlowKit
import FlowWire
import Foundation
import Testing

/// The limits of docs/protocol.md §16 (issue 46): connections (all, per process, the debug reserve),
/// screens per host and the unfinished frames' budget; each gives `LIMIT_EXCEEDED` and a log line.
/// On the embedded daemon (the socket-level flood: IntegrationTests' ConnectionLimitTests).
@Suite("Limits")
struct LimitTests {
    /// The fatal error a refused peer got, nil if it was admitted.
    static func refusal(_ bodies: [Flowd_V1_Envelope.OneOf_Body]) -> Flowd_V1_Error? {
        bodies.compactMap { if case .error(let m) = $0, m.fatal { m } else { nil } }.first
    }

    static func welcomed(_ bodies: [Flowd_V1_Envelope.OneOf_Body]) -> Bool {
        bodies.contains { if case .welcome = $0 { true } else { false } }
    }

    @Test func connectionsPastTheLimitsAreRefusedAndLoggedWhileDebugClientsKeepTheirReserve() throws {
        let log = LogLines()
        let daemon = EmbeddedDaemon(app: try EmbeddedDaemonTests.app("deep-stack"), logger: log.logger) {
            $0.maxConnections = 8
            $0.debugConnectionReserve = 2
            $0.maxConnectionsPerProcess = 3
        }
        // Hosts from six processes take the six slots hosts may take; a seventh is refused.
        var hosts: [EmbeddedConnection] = []
        for pid in 1...6 {
            let host = daemon.connect(pid: Int32(100 + pid))
            #expect(Self.welcomed(host.hello(role: .screenHost, name: "host-\(pid)", provides: ["other"])))
            hosts.append(host)
        }
        let seventh = daemon.connect(pid: 107)
        let refused = try #require(Self.refusal(seventh.hello(role: .screenHost, name: "host-7", provides: ["other"])))
        #expect(refused.code == .limitExceeded)
        #expect(refused.message.contains("kept for debug clients"), "\(refused.message)")
        #expect(seventh.isClosed)
        // A debug client still gets in: the reserve is its.
        let flowctl = daemon.connect(pid: 200)
        #expect(Self.welcomed(flowctl.hello(role: .debug, name: "flowctl")))
        // Eight connections are the limit, whatever the role.
        let eighth = daemon.connect(pid: 300)
        #expect(Self.welcomed(eighth.hello(role: .debug, name: "eighth")))
        let ninth = daemon.connect(pid: 301)
        let all = try #require(Self.refusal(ninth.readBodies()), "the ninth connection is over the limit of eight")
        #expect(all.code == .limitExceeded && all.message.contains("--max-connections 8"), "\(all.message)")
        #expect(ninth.isClosed)
        #expect(log.lines.contains { $0.contains("refused a connection over a limit") })
        #expect(hosts.allSatisfy { !$0.isClosed } && !flowctl.isClosed && !eighth.isClosed, "nobody else is closed")
    }

    @Test func oneProcessMayHoldItsShareOfConnections() throws {
        let log = LogLines()
        let daemon = EmbeddedDaemon(app: nil, logger: log.logger) {
            $0.maxConnections = 100
            $0.maxConnectionsPerProcess = 3
        }
        let held = (0..<3).map { _ in daemon.connect(pid: 77) }
        for connection in held { #expect(Self.welcomed(connection.hello(role: .debug))) }
        let fourth = daemon.connect(pid: 77)
        let error = try #require(Self.refusal(fourth.readBodies()), "refused at once, before its Hello")
        #expect(error.code == .limitExceeded && error.message.contains("process 77"), "\(error.message)")
        #expect(fourth.isClosed)
        #expect(Self.welcomed(daemon.connect(pid: 78).hello(role: .debug)), "another process gets in")
        #expect(log.lines.contains { $0.contains("refused a connection over a limit") })
    }

    @Test func aFullHostIsToldAndTheScreensPastItGoToAHostWithRoom() throws {
        let log = LogLines()
        let daemon = EmbeddedDaemon(app: try EmbeddedDaemonTests.app("deep-stack"), logger: log.logger) {
            $0.maxScreensPerHost = 3
            $0.exitWhenAppFinishes = false
        }
        let (first, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: first)
        let root = try #require(answer.compactMap { if case .place(let m) = $0 { m.screenID } else { nil } }.first)
        EmbeddedDaemonTests.press(0, on: root, from: first)
        var bodies = first.readBodies()
        EmbeddedDaemonTests.ackAll(bodies, on: first)
        EmbeddedDaemonTests.press(0, on: root, from: first)
        bodies = first.readBodies()
        EmbeddedDaemonTests.ackAll(bodies, on: first)
        #expect(daemon.daemon.delivery.hosts[first.id]?.screens.count == 3)
        // A fourth screen: the host is full.
        EmbeddedDaemonTests.press(0, on: root, from: first)
        bodies = first.readBodies()
        #expect(!bodies.contains { if case .place = $0 { true } else { false } }, "a full host gets no more screens")
        let error = try #require(bodies.compactMap { if case .error(let m) = $0 { m } else { nil } }.first, "it is told")
        #expect(error.code == .limitExceeded && !error.fatal && error.screenID != 0)
        #expect(error.message.contains("3 screens"), "\(error.message)")
        #expect(log.lines.contains { $0.contains("a screen host is full") })
        // A second host of the kind takes it.
        let (second, taken) = EmbeddedDaemonTests.host(daemon)
        let places = taken.compactMap { if case .place(let m) = $0 { m.screenID } else { nil } }
        #expect(places == [error.screenID], "the screen waiting goes to the host with room")
        #expect(daemon.daemon.invariantViolations().isEmpty)
        _ = second
    }

    @Test func unfinishedFramesPastTheBudgetCloseTheConnectionThatCrossedIt() throws {
        let log = LogLines()
        let daemon = EmbeddedDaemon(app: nil, logger: log.logger) { $0.partialFrameBudget = 64 << 10 }
        let first = daemon.connect(pid: 1)
        _ = first.hello(role: .debug)
        let second = daemon.connect(pid: 2)
        _ = second.hello(role: .debug)
        // Each announces a 100 KB frame and sends 40 KB of it.
        let header: [UInt8] = [0xA0, 0x86, 0x01, 0x00]
        first.sendBytes(header + [UInt8](repeating: 0x0A, count: 40_000))
        #expect(!first.isClosed, "40 KB unfinished are within the budget")
        second.sendBytes(header + [UInt8](repeating: 0x0A, count: 40_000))
        let error = try #require(Self.refusal(second.readBodies()), "80 KB are over the 64 KiB budget")
        #expect(error.code == .limitExceeded && error.message.contains("unfinished frames"), "\(error.message)")
        #expect(second.isClosed)
        #expect(!first.isClosed, "the connection that crossed the budget goes, not the others")
        #expect(log.lines.contains { $0.contains("refused a connection over a limit") })
    }
}
