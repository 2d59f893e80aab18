import FlowApp
import Testing

/// `AppPolicy` alone: the file format (docs/daemon.md, "Who may do what"), every bad line refused
/// with its line number and reason, and the decisions as pure functions of an identity.
@Suite("App policy")
struct AppPolicyTests {
    static let host = PeerIdentity(uid: 1000, gid: 100, pid: 7, executable: "/usr/lib/app/host", unit: "app-host.service",
                                   securityLabel: "app_host_t")
    static let other = PeerIdentity(uid: 1000, gid: 100, pid: 8, executable: "/usr/bin/python3")
    static let spawned = PeerIdentity(uid: 1000, gid: 100, pid: 9, executable: "demo-screens", factory: "login")

    static func parse(_ text: String) throws -> AppPolicy { try AppPolicy(parsing: text, source: "p") }

    // MARK: Parsing

    @Test func aFileWithEveryRuleReadsAsItSays() throws {
        let policy = try Self.parse("""
            # a device
              provide login,menu by exe=/usr/lib/app/host uid=1000
            provide secret only-factory\r
            provide * by unit=app-host.service
            open-links by label=app_host_t
            open-links by factory=*
            display by exe=/usr/lib/flowd/flowd-shell
            debug inspect by gid=100
            debug control by nobody

            saved-state same-identity
            """)
        #expect(policy.hosting == [
            .init(kinds: ["login", "menu"], peers: .init(uid: 1000, executable: "/usr/lib/app/host"), origin: "p:2"),
            .init(kinds: ["secret"], peers: nil, origin: "p:3"),
            .init(kinds: ["*"], peers: .init(unit: "app-host.service"), origin: "p:4"),
        ])
        #expect(policy.links == [.init(.init(securityLabel: "app_host_t"), origin: "p:5"), .init(.init(factory: "*"), origin: "p:6")])
        #expect(policy.displays == [.init(.init(executable: "/usr/lib/flowd/flowd-shell"), origin: "p:7")])
        #expect(policy.debug == [.init(.inspect, .init(gid: 100), origin: "p:8"), .init(.control, .nobody, origin: "p:9")])
        #expect(policy.refusalToDisplay(by: Self.host)?.message.hasSuffix(#"may not take the display role: policy rule "display by exe=/usr/lib/flowd/flowd-shell" (p:7) admits other peers only"#) == true)
        #expect(policy.refusalToDisplay(by: PeerIdentity(uid: 1000, gid: 100, pid: 7, executable: "/usr/lib/flowd/flowd-shell")) == nil)
        #expect(policy.savedState == .sameIdentity)
        // Written back and read again: the same rules.
        let again = try Self.parse(policy.fileText)
        #expect(again.hosting.map(\.description) == policy.hosting.map(\.description))
        #expect(again.debug?.map(\.description) == policy.debug?.map(\.description))
        #expect(again.displays?.map(\.peers) == policy.displays?.map(\.peers))
        #expect(again.savedState == policy.savedState)
    }

    @Test func anEmptyFileIsTheDefault() throws {
        #expect(try Self.parse("") == .sameUser)
        #expect(try Self.parse("# nothing but a comment\n\n") == .sameUser)
    }

    @Test(arguments: [
        ("provide", "1: `provide` needs kinds, then `by PEERS` or `only-factory`: `provide`"),
        ("provide a,,b by any", "1: an empty kind in `a,,b` (kinds are comma-separated, no spaces): `provide a,,b by any`"),
        ("provide a only-factory now", "1: nothing may follow `only-factory`: `provide a only-factory now`"),
        ("provide a for any", "1: expected `by PEERS` after `provide a`: `provide a for any`"),
        ("open-links by", "1: `by` needs peers: any, nobody, or terms such as uid=1000 exe=/usr/bin/host: `open-links by`"),
        ("open-links by user=1", "1: unknown term `user`; the terms are uid, gid, exe, unit, label, factory: `open-links by user=1`"),
        ("open-links by uid=me", "1: uid `me` is not a number: `open-links by uid=me`"),
        ("open-links by uid=1 uid=2", "1: `uid` twice in one rule (write a second line for another peer): `open-links by uid=1 uid=2`"),
        ("open-links by exe=bin/x", "1: exe `bin/x` is not an absolute path: `open-links by exe=bin/x`"),
        ("open-links by any uid=1", "1: `any` is not a term (NAME=VALUE: uid, gid, exe, unit, label, factory), nor any or nobody alone: `open-links by any uid=1`"),
        ("debug all by any", "1: `debug` takes a power, `inspect` or `control`, then `by PEERS`: `debug all by any`"),
        ("saved-state never", "1: `saved-state` takes one of `any-host`, `same-identity`: `saved-state never`"),
        ("saved-state any-host\nsaved-state same-identity", "2: a second `saved-state` line: `saved-state same-identity`"),
        ("# ok\nallow everything", "2: unknown rule `allow`; a line starts with provide, open-links, display, debug, saved-state or #: `allow everything`"),
    ])
    func aBadLineIsRefusedWithItsNumberAndWhy(text: String, expected: String) {
        #expect(throws: AppPolicy.ParseError.self) { try Self.parse(text) }
        do {
            _ = try Self.parse(text)
        } catch {
            #expect("\(error)" == "p:" + expected)
        }
    }

    // MARK: Decisions

    @Test func hostingRulesNameTheirKindsAndStarTakesTheRest() throws {
        let policy = try Self.parse("provide login by exe=/usr/lib/app/host\nprovide login by uid=0\nprovide * by unit=app-host.service")
        #expect(policy.refusal(toProvide: "login", by: Self.host) == nil)
        let refused = try #require(policy.refusal(toProvide: "login", by: Self.other))
        #expect(refused.message == #"uid 1000 pid 8 /usr/bin/python3 may not provide kind "login": policy rule "provide login by exe=/usr/lib/app/host" (p:1), "provide login by uid=0" (p:2) admits other peers only"#)
        #expect(policy.refusal(toProvide: "menu", by: Self.host) == nil, "the * rule: its unit")
        #expect(policy.refusal(toProvide: "menu", by: Self.other)?.message.contains(#""provide * by unit=app-host.service" (p:3)"#) == true)
        #expect(AppPolicy.sameUser.refusal(toProvide: "anything", by: Self.other) == nil)
        // No * rule: kinds no rule names stay open to every peer.
        #expect(try Self.parse("provide login only-factory").refusal(toProvide: "menu", by: Self.other) == nil)
    }

    @Test func termsMustAllHold() {
        let peers = AppPolicy.Peers(uid: 1000, gid: 100, executable: "/usr/lib/app/host", unit: "app-host.service", securityLabel: "app_host_t")
        #expect(peers.matches(Self.host))
        var moved = Self.host
        moved.unit = "other.service"
        #expect(!peers.matches(moved))
        #expect(!AppPolicy.Peers.nobody.matches(Self.host) && AppPolicy.Peers.any.matches(Self.host))
        #expect(AppPolicy.Peers(factory: "*").matches(Self.spawned) && !AppPolicy.Peers(factory: "*").matches(Self.host))
        #expect(AppPolicy.Peers(factory: "login").matches(Self.spawned) && !AppPolicy.Peers(factory: "menu").matches(Self.spawned))
        // An unknown part of an identity matches no term about it.
        #expect(!AppPolicy.Peers(unit: "app-host.service").matches(Self.other))
    }

    @Test func debugPowersAreTheHighestRuleThatMatches() throws {
        let policy = try Self.parse("debug inspect by any\ndebug control by unit=app-host.service")
        #expect(policy.debugPower(of: Self.host) == .control && policy.debugPower(of: Self.other) == .inspect)
        #expect(policy.refusal(ofDebug: .control, to: Self.host) == nil && policy.refusal(ofDebug: .inspect, to: Self.other) == nil)
        #expect(policy.refusal(ofDebug: .control, to: Self.other)?.message
                == #"uid 1000 pid 8 /usr/bin/python3 may only inspect; this needs the debug power control: policy rule "debug control by unit=app-host.service" (p:2) admits other peers only"#)
        let none = try Self.parse("debug inspect by nobody")
        #expect(none.debugPower(of: Self.host) == nil)
        #expect(none.refusal(ofDebug: .control, to: Self.host)?.message == "uid 1000 pid 7 /usr/lib/app/host unit app-host.service label app_host_t may not take the debug role: no policy rule grants it")
        #expect(AppPolicy.sameUser.debugPower(of: Self.other) == .control)
    }

    @Test func linksNeedARuleOnceOneIsWritten() throws {
        let policy = try Self.parse("open-links by factory=login")
        #expect(policy.refusalToOpenLinks(by: Self.spawned) == nil)
        #expect(policy.refusalToOpenLinks(by: Self.host)?.message.hasSuffix(#"may not open links: policy rule "open-links by factory=login" (p:1) admits other peers only"#) == true)
        #expect(AppPolicy.sameUser.refusalToOpenLinks(by: Self.other) == nil)
    }

    @Test func savedStateGoesOnlyToTheSameProgramUnderSameIdentity() throws {
        let policy = try Self.parse("saved-state same-identity")
        var restarted = Self.host
        restarted.pid = 70
        restarted.unit = nil
        #expect(policy.allowsSavedState(from: Self.host, to: restarted), "same uid and executable, another pid")
        #expect(!policy.allowsSavedState(from: Self.host, to: Self.other), "another executable")
        var otherUser = Self.host
        otherUser.uid = 1001
        #expect(!policy.allowsSavedState(from: Self.host, to: otherUser))
        #expect(!policy.allowsSavedState(from: nil, to: Self.host), "an author not known (restored from the journal)")
        var sameExecutableSpawned = Self.host
        sameExecutableSpawned.factory = "login"
        #expect(!policy.allowsSavedState(from: Self.host, to: sameExecutableSpawned), "a factory's process is another identity")
        #expect(AppPolicy.sameUser.allowsSavedState(from: nil, to: Self.other))
    }

    @Test(arguments: [
        ("/user.slice/user-1000.slice/user@1000.service/app.slice/app-foo.scope", "user@1000.service/app-foo.scope"),
        ("/user.slice/user-1000.slice/user@1000.service/app.slice/flowd-admin.service", "user@1000.service/flowd-admin.service"),
        ("/user.slice/user-1000.slice/user@1000.service", "user@1000.service"),
        ("/system.slice/flowd.service", "flowd.service"),
        ("/user.slice/user-1000.slice/session-2.scope", "session-2.scope"),
        ("/", nil), ("/machine.slice/libpod-abc", nil),
    ] as [(String, String?)])
    func theUnitIsTheCgroupsLastServiceOrScopeAUsersOwnNamedWithItsManager(cgroup: String, unit: String?) {
        #expect(PeerIdentity.unit(ofCgroup: cgroup) == unit)
    }
}
