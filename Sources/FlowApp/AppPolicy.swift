/// What each peer of the daemon may do, for one app: which identities may provide which kinds (or
/// which kinds only their factory's process may host), who may open links, who may take the debug
/// role with which of its powers, and whether a held screen's saved state goes to any next host or
/// only to the same program. Set in Swift (`App.policy`) or read from a file
/// (`AppPolicy(parsing:source:)`, docs/daemon.md "Who may do what"). Every decision is a pure
/// function of a `PeerIdentity`; a refusal names the rule that decided it.
///
/// The socket's own check comes first: only the daemon's uid connects at all, so `Peers.any` means
/// any process of the daemon's user. The default (`sameUser`) admits all of them to everything.
public struct AppPolicy: Sendable, Equatable {
    /// A set of peers: every term set must hold (`uid=1000 exe=/usr/bin/x` is that program run by
    /// that user). No term: any peer (`any`); `nobody`: none.
    public struct Peers: Sendable, Equatable, CustomStringConvertible {
        /// The user id.
        public var uid: UInt32?
        /// The group id (the process's primary group, as `SO_PEERCRED` gives it).
        public var gid: UInt32?
        /// The executable's path, exactly (`/proc/PID/exe`: symlinks resolved).
        public var executable: String?
        /// The systemd unit (`foo.service`, `app-bar.scope`).
        public var unit: String?
        /// The LSM label (`SO_PEERSEC`), exactly.
        public var securityLabel: String?
        /// A process the daemon spawned for this kind (`*`: for any kind).
        public var factory: String?
        /// Matches no peer at all.
        public var isNobody = false

        /// The peers with every term given (none: any peer).
        public init(uid: UInt32? = nil, gid: UInt32? = nil, executable: String? = nil, unit: String? = nil,
                    securityLabel: String? = nil, factory: String? = nil) {
            self.uid = uid
            self.gid = gid
            self.executable = executable
            self.unit = unit
            self.securityLabel = securityLabel
            self.factory = factory
        }

        /// Any peer the socket admits.
        public static let any = Peers()
        /// No peer.
        public static var nobody: Peers {
            var peers = Peers()
            peers.isNobody = true
            return peers
        }

        /// Whether `identity` is one of these peers.
        public func matches(_ identity: PeerIdentity) -> Bool {
            guard !isNobody else { return false }
            if let uid, identity.uid != uid { return false }
            if let gid, identity.gid != gid { return false }
            if let executable, identity.executable != executable { return false }
            if let unit, identity.unit != unit { return false }
            if let securityLabel, identity.securityLabel != securityLabel { return false }
            if let factory {
                guard let theirs = identity.factory, factory == "*" || theirs == factory else { return false }
            }
            return true
        }

        /// As a policy file writes it: `any`, `nobody`, or its terms (`uid=1000 exe=/usr/bin/x`).
        public var description: String {
            if isNobody { return "nobody" }
            var terms: [String] = []
            if let uid { terms.append("uid=\(uid)") }
            if let gid { terms.append("gid=\(gid)") }
            if let executable { terms.append("exe=\(executable)") }
            if let unit { terms.append("unit=\(unit)") }
            if let securityLabel { terms.append("label=\(securityLabel)") }
            if let factory { terms.append("factory=\(factory)") }
            return terms.isEmpty ? "any" : terms.joined(separator: " ")
        }
    }

    /// Where a rule was written, for the messages that name it: `/etc/flowd/demo.policy:3`, or
    /// `App.policy` for one set in Swift.
    public typealias Origin = String

    /// Who may host screens of some kinds.
    public struct Hosting: Sendable, Equatable, CustomStringConvertible {
        /// The kinds (`["*"]`: every kind no other hosting rule names).
        public var kinds: [String]
        /// The attached hosts that may provide them; nil: none, only the process the kind's factory
        /// spawns hosts them (`only-factory`).
        public var peers: Peers?
        /// Where the rule was written.
        public var origin: Origin

        /// A hosting rule; `peers` nil: only the factory's process.
        public init(kinds: [String], peers: Peers?, origin: Origin = "App.policy") {
            self.kinds = kinds
            self.peers = peers
            self.origin = origin
        }

        public var description: String {
            "provide \(kinds.joined(separator: ",")) \(peers.map { "by \($0)" } ?? "only-factory")"
        }
    }

    /// A rule that admits some peers to something (`open-links by ...`).
    public struct Grant: Sendable, Equatable {
        /// The peers admitted.
        public var peers: Peers
        /// Where the rule was written.
        public var origin: Origin

        /// A rule admitting `peers`.
        public init(_ peers: Peers, origin: Origin = "App.policy") {
            self.peers = peers
            self.origin = origin
        }
    }

    /// The debug role's powers, each including the ones before it.
    public enum DebugPower: Int, Sendable, Comparable, CustomStringConvertible {
        /// Read: the tree, stats, events, the contract, the history and start state (what `flowctl
        /// record` reads), the audit log.
        case inspect = 1
        /// Act: inject outputs and navigation, terminate flows (what a replay into a live daemon, or
        /// the inspector's buttons, do).
        case control = 2

        public static func < (lhs: DebugPower, rhs: DebugPower) -> Bool { lhs.rawValue < rhs.rawValue }
        public var description: String { self == .inspect ? "inspect" : "control" }
    }

    /// A rule that grants some peers a debug power.
    public struct DebugGrant: Sendable, Equatable, CustomStringConvertible {
        /// The power granted (and the ones below it).
        public var power: DebugPower
        /// The peers granted it.
        public var peers: Peers
        /// Where the rule was written.
        public var origin: Origin

        /// A rule granting `power` to `peers`.
        public init(_ power: DebugPower, _ peers: Peers, origin: Origin = "App.policy") {
            self.power = power
            self.peers = peers
            self.origin = origin
        }

        public var description: String { "debug \(power) by \(peers)" }
    }

    /// Who gets what a host saved for a held screen (`SaveState`) when the screen goes to another
    /// host: after its host left for good, or its resume grace ran out, or a resume.
    public enum SavedState: String, Sendable, Equatable {
        /// Any next host of the kind (flowd's behaviour before policies).
        case anyHost = "any-host"
        /// Only a host of the same program as the one that saved it (same uid, executable and
        /// factory: `PeerIdentity.isSameProgram`); any other gets the screen with its current state
        /// from the flow, and nothing saved. After a daemon restart who saved a state is not known
        /// (the journal keeps the bytes only), so restored saved states are withheld too.
        case sameIdentity = "same-identity"
    }

    /// The hosting rules, in order. No rule for a kind (and no `*` rule): any peer may provide it.
    public var hosting: [Hosting]
    /// Who may send `OpenLink` (screen hosts and debug clients); nil: any peer.
    public var links: [Grant]?
    /// Who may take the debug role and with which power; nil: any peer, with every power.
    public var debug: [DebugGrant]?
    /// Who may take the display role (draw every screen, send any screen's user navigation); nil: any peer.
    public var displays: [Grant]?
    /// Where a held screen's saved state may go.
    public var savedState: SavedState

    /// A policy of these rules; by default every peer may do everything (`sameUser`).
    public init(hosting: [Hosting] = [], links: [Grant]? = nil, debug: [DebugGrant]? = nil, displays: [Grant]? = nil,
                savedState: SavedState = .anyHost) {
        self.hosting = hosting
        self.links = links
        self.debug = debug
        self.displays = displays
        self.savedState = savedState
    }

    /// Every peer the socket admits (the daemon's user) may do everything: flowd's behaviour for the
    /// demo, and the default of every `App`.
    public static let sameUser = AppPolicy()

    // MARK: Decisions

    /// A refusal: the message says who was refused what, and names the rule.
    public struct Refusal: Sendable, Equatable, Error, CustomStringConvertible {
        /// What was refused to whom, and the rule.
        public var message: String
        public var description: String { message }
    }

    /// `rule (origin)` for messages.
    private static func cite(_ rule: some CustomStringConvertible, _ origin: Origin) -> String { "\"\(rule)\" (\(origin))" }

    /// The hosting rules that decide `kind`: those naming it, else those naming `*`.
    public func hostingRules(for kind: String) -> [Hosting] {
        let named = hosting.filter { $0.kinds.contains(kind) }
        return named.isEmpty ? hosting.filter { $0.kinds.contains("*") } : named
    }

    /// Whether the attached host `identity` may provide `kind` (checked at its `Hello`, for each kind).
    public func refusal(toProvide kind: String, by identity: PeerIdentity) -> Refusal? {
        let rules = hostingRules(for: kind)
        guard !rules.isEmpty, !rules.contains(where: { $0.peers?.matches(identity) == true }) else { return nil }
        let cited = rules.map { Self.cite($0, $0.origin) }.joined(separator: ", ")
        if rules.allSatisfy({ $0.peers == nil }) {
            return Refusal(message: """
                kind "\(kind)" is hosted only by the process its factory spawns (policy rule \(cited)); \
                \(identity.summary) may not provide it
                """)
        }
        return Refusal(message: """
            \(identity.summary) may not provide kind "\(kind)": policy rule \(cited) admits other peers only
            """)
    }

    /// Whether `identity` may take the display role.
    public func refusalToDisplay(by identity: PeerIdentity) -> Refusal? {
        guard let displays, !displays.contains(where: { $0.peers.matches(identity) }) else { return nil }
        let cited = displays.map { Self.cite("display by \($0.peers)", $0.origin) }.joined(separator: ", ")
        return Refusal(message: "\(identity.summary) may not take the display role: policy rule \(cited) admits other peers only")
    }

    /// Whether `identity` may open links.
    public func refusalToOpenLinks(by identity: PeerIdentity) -> Refusal? {
        guard let links, !links.contains(where: { $0.peers.matches(identity) }) else { return nil }
        let cited = links.map { Self.cite("open-links by \($0.peers)", $0.origin) }.joined(separator: ", ")
        return Refusal(message: "\(identity.summary) may not open links: policy rule \(cited) admits other peers only")
    }

    /// The debug power `identity` has: the highest of the rules that match it; nil: it may not take
    /// the debug role.
    public func debugPower(of identity: PeerIdentity) -> DebugPower? {
        guard let debug else { return .control }
        return debug.filter { $0.peers.matches(identity) }.map(\.power).max()
    }

    /// Why `identity` may not take the debug role, or may not use `power` of it.
    public func refusal(ofDebug power: DebugPower, to identity: PeerIdentity) -> Refusal? {
        guard let debug else { return nil }
        let has = debugPower(of: identity)
        if let has, has >= power { return nil }
        let granting = debug.filter { $0.power >= power }
        let cited = granting.isEmpty ? "no policy rule grants it" : "policy rule "
            + granting.map { Self.cite($0, $0.origin) }.joined(separator: ", ") + " admits other peers only"
        if has == nil {
            return Refusal(message: "\(identity.summary) may not take the debug role: \(cited)")
        }
        return Refusal(message: "\(identity.summary) may only inspect; this needs the debug power \(power): \(cited)")
    }

    /// Whether a held screen's saved state, saved by `author` (nil: unknown, e.g. restored from the
    /// journal), may go to the host `next`.
    public func allowsSavedState(from author: PeerIdentity?, to next: PeerIdentity) -> Bool {
        switch savedState {
        case .anyHost: true
        case .sameIdentity: author.map { $0.isSameProgram(as: next) } ?? false
        }
    }

    /// Whether this policy is the default (every same-uid peer may do everything).
    public var isSameUser: Bool { self == .sameUser }
}
