import DemoApps
import FlowApp
@testable import FlowDaemon
import FlowKit
import FlowWire
import Foundation
import Logging
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The hosts part alone, as async-http-client tests its connection state machine: events in, actions
/// out, no connection, no loop, no delivery (its reports are played by hand).
@Suite struct HostsTests {
    /// A process as the hosts part sees it: pid, connection, the signals it was sent.
    final class Child: SpawnedHost {
        let pid: Int32
        let connectionID: UInt64
        var screen: ScreenID?
        var exitedAbnormally = false
        var exitDescription = "status 0"
        var onExit: ((any SpawnedHost) -> Void)?
        var signals: [Int32] = []
        var retiredFor: String?

        init(pid: Int32, connection: UInt64) {
            self.pid = pid
            connectionID = connection
        }

        func retire(reason: String) { retiredFor = reason }
        func send(_ signal: Int32) { signals.append(signal) }
        func assign(_ screen: ScreenID) { self.screen = screen }
    }

    /// Spawns nothing: the hosts part's processes are adopted by hand (`started`).
    final class NoSpawner: ScreenSpawner {
        struct Refused: Error {}
        func spawn(screen: ScreenID?, kind: String, executable: String, arguments: [String], environment: FlowApp.ScreenFactory.Environment,
                   socketPath: String, adopt: (any ConnectionPipe, String, Int32) -> UInt64) throws -> any SpawnedHost { throw Refused() }
    }

    static func hosts(policy: AppPolicy = .sameUser, _ configure: (inout DaemonConfiguration) -> Void = { _ in }) -> Hosts {
        var configuration = DaemonConfiguration(socketPath: "/tmp/unused")
        configuration.resumeGraceMilliseconds = 1_000
        configuration.hangTimeoutMilliseconds = 400
        configuration.spawnExitGraceMilliseconds = 100
        configure(&configuration)
        var app = BuiltInApps.named("launcher")
        app?.policy = policy
        return Hosts(configuration: configuration, app: app, spawner: NoSpawner(),
                     logger: Logger(label: "hosts-tests"), throttle: LogThrottle())
    }

    /// The actions taken, as short words a test can compare.
    static func words(_ hosts: inout Hosts) -> [String] {
        hosts.takeActions().map {
            switch $0 {
            case .ping(let host, _): "ping \(host)"
            case .kill(let host, _): "kill \(host)"
            case .disconnect(let host, let shutdown): "disconnect \(host) \(shutdown.reason)"
            case .signal(let child, let signal): "signal \(child.pid) \(signal == SIGTERM ? "TERM" : "KILL")"
            case .tell(let notice): "tell \(notice.message)"
            case .delivery(.joined(let host, _, _, _, let spawned, let resuming)):
                "joined \(host)\(spawned ? " spawned" : "")\(resuming.map { " resuming \($0)" } ?? "")"
            case .delivery(.left(let host, let resumable)): "left \(host)\(resumable ? " resumable" : "")"
            case .delivery(.exited(let host, let abnormally)): "exited \(host)\(abnormally ? " abnormally" : "")"
            }
        }
    }

    static func token(_ join: Hosts.Join) -> String {
        if case .admitted(let token, _) = join { token } else { "" }
    }

    @Test func aDebugClientIsNotAHost() {
        var hosts = Self.hosts()
        #expect(hosts.join(1, label: "#1", pid: 10, role: .debug, provides: [], resumeToken: "", spawned: false) == .notAHost)
        #expect(Self.words(&hosts).isEmpty)
    }

    @Test func aProcessThatExitedBeforeItsConnectionClosedStillLeavesTheDelivery() {
        var hosts = Self.hosts()
        let child = Child(pid: 503, connection: 11)
        hosts.started(child)
        hosts.exited(child, kind: "item")
        _ = Self.words(&hosts)
        hosts.closed(11, resumable: true, now: 0)
        #expect(Self.words(&hosts) == ["left 11 resumable"], "the delivery waits for both, in either order")
    }

    @Test func anAttachedHostGetsATokenAndTheDeliveryHearsOfIt() {
        var hosts = Self.hosts()
        let join = hosts.join(1, label: "#1", pid: 10, role: .screenHost, provides: ["menu"], resumeToken: "", spawned: false)
        guard case .admitted(let token, let resumed) = join else { Issue.record("refused: \(join)"); return }
        #expect(!token.isEmpty && !resumed)
        #expect(Self.words(&hosts) == ["joined 1"])
    }

    @Test func withoutAResumeGraceNoTokenIsIssued() {
        var hosts = Self.hosts { $0.resumeGraceMilliseconds = 0 }
        #expect(hosts.join(1, label: "#1", pid: 10, role: .screenHost, provides: ["menu"], resumeToken: "", spawned: false) == .admitted(resumeToken: "", resumed: false))
    }

    @Test func aHeldHostIsResumedOnceByItsToken() {
        var hosts = Self.hosts()
        let token = Self.token(hosts.join(1, label: "#1", pid: 10, role: .screenHost, provides: ["menu"], resumeToken: "", spawned: false))
        _ = Self.words(&hosts)
        hosts.closed(1, resumable: true, now: 0)
        #expect(Self.words(&hosts) == ["left 1 resumable"])
        // The delivery held its screens (its report).
        _ = hosts.report(.detached(host: 1, screens: 2), owner: nil)
        let resumed = hosts.join(2, label: "#2", pid: 11, role: .screenHost, provides: ["menu"], resumeToken: token, spawned: false)
        guard case .admitted(let next, true) = resumed else { Issue.record("not resumed: \(resumed)"); return }
        #expect(!next.isEmpty && next != token, "a new token in each Welcome")
        #expect(Self.words(&hosts) == ["joined 2 resuming 1"])
        _ = hosts.report(.resumed(host: 2, from: 1, screens: 2), owner: nil)
        #expect(hosts.counts.hostsResumed == 1)
        #expect(hosts.join(3, label: "#3", pid: 12, role: .screenHost, provides: [], resumeToken: token, spawned: false)
                == .refused(code: .resumeRefused, message: "resume refused: \(ResumeTokens.Refusal.used)"))
    }

    @Test func aHostWhoseScreensWereNotHeldLeftForGood() {
        var hosts = Self.hosts()
        let token = Self.token(hosts.join(1, label: "#1", pid: 10, role: .screenHost, provides: ["menu"], resumeToken: "", spawned: false))
        hosts.closed(1, resumable: false, now: 0)
        _ = Self.words(&hosts)
        // No `detached` report: the delivery did not hold them.
        #expect(hosts.join(2, label: "#2", pid: 11, role: .screenHost, provides: [], resumeToken: token, spawned: false)
                == .refused(code: .resumeRefused, message: "resume refused: \(ResumeTokens.Refusal.hostLeft)"))
    }

    @Test func anExpiredGraceSpendsTheToken() {
        var hosts = Self.hosts()
        let token = Self.token(hosts.join(1, label: "#1", pid: 10, role: .screenHost, provides: ["menu"], resumeToken: "", spawned: false))
        hosts.closed(1, resumable: true, now: 0)
        _ = hosts.report(.detached(host: 1, screens: 1), owner: nil)
        _ = hosts.report(.resumeExpired(host: 1, screens: 1), owner: nil)
        #expect(hosts.counts.resumesExpired == 1)
        #expect(hosts.join(2, label: "#2", pid: 11, role: .screenHost, provides: [], resumeToken: token, spawned: false)
                == .refused(code: .resumeRefused, message: "resume refused: \(ResumeTokens.Refusal.expired)"))
    }

    @Test func itsOwnTokenOnANewConnectionDisplacesALiveHost() {
        var hosts = Self.hosts()
        let token = Self.token(hosts.join(1, label: "#1", pid: 10, role: .screenHost, provides: ["menu"], resumeToken: "", spawned: false))
        _ = Self.words(&hosts)
        let join = hosts.join(2, label: "#2", pid: 10, role: .screenHost, provides: ["menu"], resumeToken: token, spawned: false)
        guard case .admitted(_, true) = join else { Issue.record("not resumed: \(join)"); return }
        #expect(Self.words(&hosts) == [
            "tell resume token presented while its connection is open; closing the old one",
            "disconnect 1 unspecified", "left 1 resumable", "joined 2 resuming 1",
        ])
        // The old connection's close comes later: it was already left.
        hosts.closed(1, resumable: true, now: 0)
        #expect(Self.words(&hosts).isEmpty)
    }

    /// `menu` may be provided only by /usr/bin/menu-host; peer 1 is that program, peer 2 another.
    static func guarded() throws -> Hosts {
        var hosts = Self.hosts(policy: try AppPolicy(parsing: "provide menu by exe=/usr/bin/menu-host\n", source: "test.policy"))
        hosts.connected(1, as: PeerIdentity(uid: 1000, gid: 1000, pid: 10, executable: "/usr/bin/menu-host"))
        hosts.connected(2, as: PeerIdentity(uid: 1000, gid: 1000, pid: 11, executable: "/tmp/squatter"))
        return hosts
    }

    @Test func aResumeByAPeerThePolicyDoesNotLetProvideTheKindsIsRefused() throws {
        var hosts = try Self.guarded()
        let token = Self.token(hosts.join(1, label: "#1", pid: 10, role: .screenHost, provides: ["menu"], resumeToken: "", spawned: false))
        hosts.closed(1, resumable: true, now: 0)
        _ = hosts.report(.detached(host: 1, screens: 1), owner: nil)
        _ = Self.words(&hosts)
        // Offering no kind at all does not get round the rule: the held screens are menus.
        let join = hosts.join(2, label: "#2", pid: 11, role: .screenHost, provides: [], resumeToken: token, spawned: false)
        guard case .refused(.unauthorized, let message) = join else { Issue.record("not refused: \(join)"); return }
        #expect(message.hasPrefix("resume refused: ") && message.contains("exe=/usr/bin/menu-host"), "\(message)")
        #expect(Self.words(&hosts).isEmpty, "nothing reaches the delivery")
    }

    @Test func aPeerThePolicyDoesNotAdmitCannotDisplaceALiveHostWithItsToken() throws {
        var hosts = try Self.guarded()
        let token = Self.token(hosts.join(1, label: "#1", pid: 10, role: .screenHost, provides: ["menu"], resumeToken: "", spawned: false))
        _ = Self.words(&hosts)
        let join = hosts.join(2, label: "#2", pid: 11, role: .screenHost, provides: [], resumeToken: token, spawned: false)
        guard case .refused(.unauthorized, _) = join else { Issue.record("not refused: \(join)"); return }
        #expect(Self.words(&hosts).isEmpty, "the live host is not disconnected")
    }

    @Test func whileStoppingATokenOfALiveHostIsRefused() {
        var hosts = Self.hosts()
        let token = Self.token(hosts.join(1, label: "#1", pid: 10, role: .screenHost, provides: ["menu"], resumeToken: "", spawned: false))
        hosts.stopTakingWork()
        #expect(hosts.join(2, label: "#2", pid: 10, role: .screenHost, provides: [], resumeToken: token, spawned: false)
                == .refused(code: .resumeRefused, message: "resume refused: \(ResumeTokens.Refusal.stillConnected)"))
    }

    @Test func aTokenOfAnotherRunIsRefusedAsSuch() {
        var hosts = Self.hosts()
        #expect(hosts.join(1, label: "#1", pid: 10, role: .screenHost, provides: [], resumeToken: "0123.4567", spawned: false)
                == .refused(code: .resumeRefused, message: "resume refused: \(ResumeTokens.Refusal.otherRun)"))
    }

    @Test func aSpawnedProcessGetsNoTokenAndMustExitWithinItsGraceOnceItsConnectionCloses() {
        var hosts = Self.hosts()
        let child = Child(pid: 500, connection: 7)
        hosts.started(child)
        #expect(hosts.join(7, label: "#7", pid: 500, role: .screenHost, provides: [], resumeToken: "", spawned: true) == .admitted(resumeToken: "", resumed: false))
        #expect(Self.words(&hosts) == ["joined 7 spawned"])
        hosts.closed(7, resumable: true, now: 1_000)
        #expect(Self.words(&hosts) == ["left 7 resumable"])
        #expect(hosts.nextDeadline == 1_100)
        hosts.expire(now: 1_100, awaitingAcks: []) { _ in true }
        #expect(Self.words(&hosts) == ["signal 500 TERM", "tell screen process outstays its screen; sending SIGTERM"])
        hosts.expire(now: 1_200, awaitingAcks: []) { _ in true }
        #expect(Self.words(&hosts) == ["signal 500 KILL", "tell screen process outstays its screen; sending SIGKILL"])
        child.exitedAbnormally = true
        hosts.exited(child, kind: "item")
        #expect(Self.words(&hosts) == ["tell screen process exited", "exited 7 abnormally"])
        #expect(hosts.processCount == 0 && hosts.nextDeadline == nil)
    }

    @Test func aProcessThatClosesBeforeItsHandshakeStillLeavesTheDelivery() {
        var hosts = Self.hosts()
        hosts.started(Child(pid: 501, connection: 8))
        hosts.closed(8, resumable: true, now: 0)
        #expect(Self.words(&hosts) == ["left 8 resumable"], "the delivery assigned it a screen when it was spawned")
    }

    @Test func aSilentHostWithCommandsUnacknowledgedIsPingedThenFoundHung() {
        var hosts = Self.hosts()
        _ = hosts.join(1, label: "#1", pid: 10, role: .screenHost, provides: ["menu"], resumeToken: "", spawned: false)
        _ = Self.words(&hosts)
        hosts.acksAwaited(now: 0)
        // Ticks every quarter of the 400 ms timeout: pinged once it awaited acks for two ticks.
        hosts.expire(now: 100, awaitingAcks: [1]) { _ in true }
        #expect(Self.words(&hosts).isEmpty)
        hosts.expire(now: 200, awaitingAcks: [1]) { _ in true }
        #expect(Self.words(&hosts) == ["ping 1"])
        hosts.expire(now: 600, awaitingAcks: [1]) { _ in true }
        let words = Self.words(&hosts)
        #expect(words.contains("disconnect 1 hung"), "an attached host is disconnected: \(words)")
        #expect(hosts.counts.hostsHung == 1)
    }

    @Test func aHostHeardSinceItsPingIsNotHung() {
        var hosts = Self.hosts()
        _ = hosts.join(1, label: "#1", pid: 10, role: .screenHost, provides: ["menu"], resumeToken: "", spawned: false)
        _ = Self.words(&hosts)
        hosts.acksAwaited(now: 0)
        hosts.expire(now: 100, awaitingAcks: [1]) { _ in true }
        hosts.expire(now: 200, awaitingAcks: [1]) { _ in true }
        #expect(Self.words(&hosts) == ["ping 1"])
        hosts.heard(1, now: 300)
        hosts.expire(now: 600, awaitingAcks: [1]) { _ in true }
        #expect(Self.words(&hosts) == ["ping 1"], "alive: pinged again, not hung")
        #expect(hosts.counts.hostsHung == 0)
    }

    @Test func aHungSpawnedProcessIsKilledAndAClosingOneLeftAlone() {
        var hosts = Self.hosts()
        hosts.started(Child(pid: 502, connection: 9))
        _ = hosts.join(9, label: "#9", pid: 502, role: .screenHost, provides: [], resumeToken: "", spawned: true)
        _ = hosts.join(10, label: "#10", pid: 20, role: .screenHost, provides: ["menu"], resumeToken: "", spawned: false)
        _ = Self.words(&hosts)
        hosts.acksAwaited(now: 0)
        hosts.expire(now: 100, awaitingAcks: [9, 10]) { _ in true }
        hosts.expire(now: 200, awaitingAcks: [9, 10]) { _ in true }
        #expect(Self.words(&hosts) == ["ping 9", "ping 10"])
        hosts.expire(now: 600, awaitingAcks: [9, 10]) { $0 == 9 }
        let words = Self.words(&hosts)
        #expect(words.contains("kill 9") && !words.contains { $0.hasSuffix(" 10 hung") || $0 == "kill 10" }, "\(words)")
        #expect(hosts.counts.hostsHung == 1, "a connection already closing is not judged")
    }
}
