import DemoApps
import FlowApp
import FlowDaemon
import FlowDaemonTesting
import FlowWire
import Foundation
import Testing

/// The app's policy on the embedded daemon (docs/daemon.md, "Who may do what"): who may provide a
/// kind, open links, take the debug role with which power, and who gets a held screen's saved
/// state. Peers are presented with the identity the kernel would give them (`connect(identity:)`).
@Suite("Peer policy")
struct PeerPolicyTests {
    static let trusted = PeerIdentity(uid: 1000, gid: 1000, pid: 301, executable: "/usr/lib/app/item-host")
    static let squatter = PeerIdentity(uid: 1000, gid: 1000, pid: 302, executable: "/usr/bin/python3")
    static let admin = PeerIdentity(uid: 1000, gid: 1000, pid: 303, executable: "/usr/bin/flowctl", unit: "flowd-admin.service")

    static func daemon(_ policy: String) throws -> EmbeddedDaemon {
        let parsed = try AppPolicy(parsing: policy, source: "test.policy")
        return EmbeddedDaemon(app: try EmbeddedDaemonTests.app("deep-stack").withPolicy(parsed)) {
            $0.exitWhenAppFinishes = false
            $0.allowedUID = 1000  // the peers' user: the socket admits them, the policy decides the rest
        }
    }

    static func error(_ bodies: [Flowd_V1_Envelope.OneOf_Body]) -> Flowd_V1_Error? {
        bodies.lazy.compactMap { if case .error(let e) = $0 { e } else { nil } }.first
    }

    static func welcomed(_ bodies: [Flowd_V1_Envelope.OneOf_Body]) -> Bool {
        bodies.contains { if case .welcome = $0 { true } else { false } }
    }

    static func places(_ bodies: [Flowd_V1_Envelope.OneOf_Body]) -> [Flowd_V1_Place] {
        bodies.compactMap { if case .place(let p) = $0 { p } else { nil } }
    }

    static func host(_ daemon: EmbeddedDaemon, as identity: PeerIdentity) -> (EmbeddedConnection, [Flowd_V1_Envelope.OneOf_Body]) {
        let connection = daemon.connect(identity: identity)
        return (connection, connection.hello(role: .screenHost, name: "item-host", provides: ["item"]))
    }

    static func pressOutput(_ screen: UInt64) -> Flowd_V1_InjectOutput {
        var inject = Flowd_V1_InjectOutput()
        inject.screenID = screen
        inject.payload = .json(Data(#"{"didPressButton":{"index":0}}"#.utf8))
        return inject
    }

    static func audit(_ daemon: EmbeddedDaemon) throws -> [Flowd_V1_AuditEntry] {
        let reader = daemon.connect(identity: admin)
        _ = reader.hello(role: .debug)
        var request = Flowd_V1_GetTree()
        request.audit = true
        reader.send(.getTree(request))
        let tree = try #require(reader.readBodies().lazy.compactMap { if case .tree(let t) = $0 { t } else { nil } }.first)
        reader.hangUp()
        return tree.audit
    }

    // MARK: Hello

    @Test func aSameUIDHostThePolicyDoesNotAdmitForAKindIsRefusedAtHelloNamingTheRule() throws {
        let daemon = try Self.daemon("provide item by exe=/usr/lib/app/item-host\n")
        let (refused, answer) = Self.host(daemon, as: Self.squatter)
        let error = try #require(Self.error(answer))
        #expect(error.code == .unauthorized && error.fatal)
        #expect(error.message == """
            uid 1000 pid 302 /usr/bin/python3 may not provide kind "item": policy rule \
            "provide item by exe=/usr/lib/app/item-host" (test.policy:1) admits other peers only
            """)
        #expect(!Self.welcomed(answer) && Self.places(answer).isEmpty, "no Welcome, no screen")
        #expect(refused.isClosed)
        let (_, admitted) = Self.host(daemon, as: Self.trusted)
        #expect(Self.welcomed(admitted) && Self.places(admitted).count == 1, "the program the rule names gets the screen")
    }

    @Test func aKindOnlyItsFactoryHostsIsRefusedToEveryAttachedHost() throws {
        let daemon = try Self.daemon("provide item only-factory")
        let (_, answer) = Self.host(daemon, as: Self.trusted)
        let error = try #require(Self.error(answer))
        #expect(error.code == .unauthorized && error.fatal)
        #expect(error.message.hasPrefix(#"kind "item" is hosted only by the process its factory spawns (policy rule "provide item only-factory" (test.policy:1))"#))
    }

    @Test func theDefaultPolicyAdmitsEverySameUIDPeerAsBefore() throws {
        let daemon = try Self.daemon("")
        let (_, answer) = Self.host(daemon, as: Self.squatter)
        #expect(Self.welcomed(answer) && Self.places(answer).count == 1)
        let debug = daemon.connect(identity: Self.squatter)
        #expect(Self.welcomed(debug.hello(role: .debug)))
    }

    @Test func aPeerNoDebugRuleAdmitsCannotTakeTheDebugRole() throws {
        let daemon = try Self.daemon("debug control by unit=flowd-admin.service")
        let stranger = daemon.connect(identity: Self.squatter)
        let error = try #require(Self.error(stranger.hello(role: .debug)))
        #expect(error.code == .unauthorized && error.fatal)
        #expect(error.message == """
            uid 1000 pid 302 /usr/bin/python3 may not take the debug role: policy rule \
            "debug control by unit=flowd-admin.service" (test.policy:1) admits other peers only
            """)
        #expect(Self.welcomed(daemon.connect(identity: Self.admin).hello(role: .debug)))
    }

    // MARK: Debug powers and the audit

    @Test func aDebugClientWithoutInjectRightsIsRefusedOnInjectOutputAndNothingChanges() throws {
        let daemon = try Self.daemon("""
            # the admin unit acts; any other process of the user only looks
            debug control by unit=flowd-admin.service
            debug inspect by any
            """)
        let (host, answer) = Self.host(daemon, as: Self.trusted)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let screen = try #require(Self.places(answer).first?.screenID)
        let before = daemon.daemon.tree()
        let viewer = daemon.connect(identity: Self.squatter)
        #expect(Self.welcomed(viewer.hello(role: .debug)))
        let seq = viewer.send(.injectOutput(Self.pressOutput(screen)))
        let frames = viewer.readFrames()
        let error = try #require(Self.error(frames.compactMap(\.body)))
        #expect(error.code == .unauthorized && !error.fatal)
        #expect(frames.first?.replyTo == seq, "the error answers the InjectOutput")
        #expect(error.message == """
            InjectOutput refused: uid 1000 pid 302 /usr/bin/python3 may only inspect; this needs the debug power control: \
            policy rule "debug control by unit=flowd-admin.service" (test.policy:2) admits other peers only
            """)
        #expect(frames.count == 1, "nothing else: no CommandResult")
        #expect(daemon.daemon.tree().rootFlow == before.rootFlow && daemon.daemon.tree().window == before.window, "the flows unchanged")
        #expect(host.readBodies().isEmpty, "the host was told nothing")
        // Inspection still works on the same connection.
        viewer.send(.getStats(Flowd_V1_GetStats()))
        #expect(viewer.readBodies().contains { if case .stats = $0 { true } else { false } })
        // The admin's injection goes through; both are audited, with who asked.
        let admin = daemon.connect(identity: Self.admin)
        _ = admin.hello(role: .debug)
        admin.send(.injectOutput(Self.pressOutput(screen)))
        #expect(admin.readBodies().contains { if case .commandResult = $0 { true } else { false } })
        #expect(Self.places(host.readBodies()).count == 1, "the press pushed a screen")
        let audit = try Self.audit(daemon)
        #expect(audit.map(\.action) == ["inject-output", "inject-output"])
        #expect(audit.map(\.target) == ["screen \(screen)", "screen \(screen)"])
        #expect(audit.map(\.refused) == [true, false])
        #expect(audit.map(\.identity.executable) == ["/usr/bin/python3", "/usr/bin/flowctl"])
        #expect(audit.map(\.identity.pid) == [302, 303])
        #expect(audit[0].message.contains("may only inspect"))
        #expect(audit.map(\.seq) == [1, 2])
    }

    @Test func theTreeShowsEachPeersIdentityAndDebugPower() throws {
        let daemon = try Self.daemon("debug inspect by any\ndebug control by unit=flowd-admin.service")
        _ = Self.host(daemon, as: Self.trusted)
        let viewer = daemon.connect(identity: Self.squatter)
        _ = viewer.hello(role: .debug)
        let tree = daemon.daemon.tree()
        let host = try #require(tree.connections.first { $0.role == "screen-host" })
        #expect(host.identity.executable == "/usr/lib/app/item-host" && host.identity.pid == 301 && host.identity.uid == 1000)
        #expect(host.debugPower.isEmpty)
        let debug = try #require(tree.connections.first { $0.role == "debug" })
        #expect(debug.identity.executable == "/usr/bin/python3" && debug.debugPower == "inspect")
    }

    @Test func theAuditLogKeepsTheLast256() throws {
        let daemon = try Self.daemon("")
        let (host, answer) = Self.host(daemon, as: Self.trusted)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let client = daemon.connect(identity: Self.admin)
        _ = client.hello(role: .debug)
        for flow in 0..<300 {
            var terminate = Flowd_V1_TerminateFlow()
            terminate.flowID = UInt64(1_000 + flow)  // no such flow: refused by the app, audited all the same
            client.send(.terminateFlow(terminate))
        }
        _ = client.readBodies()
        let audit = try Self.audit(daemon)
        #expect(audit.count == 256)
        #expect(audit.first?.seq == 45 && audit.last?.seq == 300, "oldest first, the first 44 dropped")
        #expect(audit.last?.target == "flow 1299" && audit.last?.action == "terminate-flow" && audit.last?.refused == false)
    }

    // MARK: Links

    @Test func openLinkFromAPeerWithoutTheRightIsANonFatalUnauthorizedAndNothingElse() throws {
        let daemon = try Self.daemon("open-links by exe=/usr/bin/flowctl")
        let (host, answer) = Self.host(daemon, as: Self.trusted)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let before = daemon.daemon.tree()
        var request = Flowd_V1_OpenLink()
        request.link = "no-such-place"
        let seq = host.send(.openLink(request))
        let frames = host.readFrames()
        let error = try #require(Self.error(frames.compactMap(\.body)))
        #expect(error.code == .unauthorized && !error.fatal && frames.first?.replyTo == seq && frames.count == 1)
        #expect(error.message == """
            uid 1000 pid 301 /usr/lib/app/item-host may not open links: policy rule \
            "open-links by exe=/usr/bin/flowctl" (test.policy:1) admits other peers only
            """)
        #expect(daemon.daemon.tree().window == before.window)
        // The admitted program's link reaches the app (which opens no such place).
        let admin = daemon.connect(identity: Self.admin)
        _ = admin.hello(role: .debug)
        admin.send(.openLink(request))
        #expect(Self.error(admin.readBodies())?.code == .linkRefused)
    }

    // MARK: Saved state

    /// Host A saves a draft and drops; a squatter of the same uid connects during A's grace and
    /// provides the kind. When the grace ends the screen goes to the squatter: under
    /// `saved-state same-identity` without the draft, by default with it (flowd before policies).
    @Test(arguments: [("saved-state same-identity", ""), ("", "secret-draft: meet at 5")])
    func aSquatterInAHostsGraceGetsNoSavedStateWhereThePolicySaysSo(policy: String, squatterGets: String) throws {
        let daemon = try Self.daemon(policy)
        let (host, answer) = Self.host(daemon, as: Self.trusted)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let screen = try #require(Self.places(answer).first?.screenID)
        SavedStateTests.save("secret-draft: meet at 5", on: screen, from: host)
        host.hangUp()
        #expect(daemon.daemon.stats().screensHeld == 1)
        let (squatter, joined) = Self.host(daemon, as: Self.squatter)
        #expect(Self.places(joined).isEmpty, "the screen is held for its host's resume")
        daemon.advanceTime(by: 5_000)
        let placed = Self.places(squatter.readBodies())
        #expect(placed.map(\.screenID) == [screen], "the grace ended: the squatter hosts the screen")
        #expect(String(decoding: placed.first?.savedState ?? Data(), as: UTF8.self) == squatterGets)
        #expect(placed.first?.state.data.isEmpty == false, "its current state from the flow")
    }

    @Test func theSameProgramGetsItsSavedStateBackUnderSameIdentity() throws {
        let daemon = try Self.daemon("saved-state same-identity")
        let (host, answer) = Self.host(daemon, as: Self.trusted)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let screen = try #require(Self.places(answer).first?.screenID)
        SavedStateTests.save("typed", on: screen, from: host)
        host.send(.shutdown(Flowd_V1_Shutdown()))
        _ = host.readBodies()
        var again = Self.trusted
        again.pid = 999
        let (_, placed) = Self.host(daemon, as: again)
        #expect(Self.places(placed).map { String(decoding: $0.savedState, as: UTF8.self) } == ["typed"], "same uid and executable, another pid")
    }
}
