import FlowApp
import FlowKit
import FlowWire

/// Who each connection's peer is, and what the app's policy lets it do: the identity read at
/// connect (or, for a spawned screen, its factory), keyed by connection id; the policy's decisions
/// at each enforcement point (the handshake, `OpenLink`, the debug powers, a held screen's saved
/// state going to a new host); who saved each screen's state; the audit log of injections and
/// terminations. A value with no I/O: the core asks it and performs what it says.
struct PeerRegistry {
    /// The app's policy (the app's own, or the file that replaced it).
    let policy: AppPolicy
    /// Identities of the connections open now.
    private var identities: [UInt64: PeerIdentity] = [:]
    /// Who saved each screen's state (only under `SavedState.sameIdentity`; empty otherwise).
    private var savers: [ScreenID: PeerIdentity] = [:]
    /// Injections and terminations, with who asked.
    private(set) var audit = AuditLog()

    init(policy: AppPolicy) {
        self.policy = policy
        passesEveryCommand = policy.savedState == .anyHost
    }

    /// Whether every screen command goes to its host as it is (saved states go to any host): the
    /// hot path reads this stored flag, not the policy.
    let passesEveryCommand: Bool

    // MARK: Identities

    /// A peer connected (or a spawned process's connection was adopted) as `identity`.
    mutating func connected(_ connection: UInt64, as identity: PeerIdentity) {
        identities[connection] = identity
    }

    /// The connection closed.
    mutating func closed(_ connection: UInt64) {
        identities[connection] = nil
    }

    /// The identity of the peer on `connection`; a connection the registry was not told of (never
    /// the case on a live daemon) is an unknown process (uid and gid 4294967295, pid 0), which no
    /// term but `any` matches.
    func identity(of connection: UInt64) -> PeerIdentity {
        identities[connection] ?? PeerIdentity(uid: UInt32.max, gid: UInt32.max, pid: 0)
    }

    /// The identity of a process spawned for `kind` by its factory: the daemon's own user, the pid
    /// it was given, and the executable its factory names.
    static func spawned(kind: String, pid: Int32, executable: String?, uid: UInt32, gid: UInt32) -> PeerIdentity {
        PeerIdentity(uid: uid, gid: gid, pid: pid, executable: executable, factory: kind)
    }

    // MARK: Decisions

    /// The handshake: a screen host that may not provide one of its kinds, or a debug client that
    /// may not take the role, is refused (fatal `UNAUTHORIZED`, naming the rule). A spawned screen's
    /// `provides` are ignored (its identity is its factory), so it is not checked here.
    func refusal(role: ConnectionStateMachine.Role, provides: [String], on connection: UInt64, spawned: Bool) -> ConnectionStateMachine.Violation? {
        let identity = identity(of: connection)
        switch role {
        case .debug:
            guard let refusal = policy.refusal(ofDebug: .inspect, to: identity) else { return nil }
            return .init(code: .unauthorized, message: refusal.message)
        case .display:
            guard let refusal = policy.refusalToDisplay(by: identity) else { return nil }
            return .init(code: .unauthorized, message: refusal.message)
        case .screenHost:
            guard !spawned else { return nil }
            for kind in provides {
                if let refusal = policy.refusal(toProvide: kind, by: identity) { return .init(code: .unauthorized, message: refusal.message) }
            }
            return nil
        }
    }

    /// `OpenLink` from `connection`: a non-fatal `UNAUTHORIZED` when the policy says it may not.
    func refusalToOpenLink(from connection: UInt64) -> Flowd_V1_Error? {
        policy.refusalToOpenLinks(by: identity(of: connection)).map { Flowd_V1_Error(code: .unauthorized, message: $0.message, fatal: false) }
    }

    /// What a debug request needs: `control` for injections and terminations, `inspect` for the rest.
    static func power(for body: Flowd_V1_Envelope.OneOf_Body) -> AppPolicy.DebugPower {
        switch body {
        case .injectOutput, .injectNavigation, .terminateFlow: .control
        default: .inspect
        }
    }

    /// The power a debug client on `connection` has (shown in the tree).
    func debugPower(of connection: UInt64) -> AppPolicy.DebugPower? {
        policy.debugPower(of: identity(of: connection))
    }

    /// A debug request from `connection`: a non-fatal `UNAUTHORIZED` when its power is not enough.
    func refusal(ofDebug body: Flowd_V1_Envelope.OneOf_Body, from connection: UInt64) -> Flowd_V1_Error? {
        let power = Self.power(for: body)
        return policy.refusal(ofDebug: power, to: identity(of: connection)).map {
            Flowd_V1_Error(code: .unauthorized, message: "\(body.name) refused: \($0.message)", fatal: false)
        }
    }

    /// What an audited request is aimed at; nil for a request that is not audited.
    static func audited(_ body: Flowd_V1_Envelope.OneOf_Body) -> (action: String, target: String)? {
        switch body {
        case .injectOutput(let inject): ("inject-output", "screen \(inject.screenID)")
        case .injectNavigation(let inject): ("inject-navigation", "screen \(inject.navigation.screenID)")
        case .terminateFlow(let terminate): ("terminate-flow", "flow \(terminate.flowID)")
        default: nil
        }
    }

    /// Records an audited request (nil for one that is not audited).
    mutating func audit(_ body: Flowd_V1_Envelope.OneOf_Body, from connection: UInt64, refusal: String?, time: UInt64) -> AuditLog.Entry? {
        guard let (action, target) = Self.audited(body) else { return nil }
        return audit.record(time: time, connection: connection, identity: identity(of: connection), action: action, target: target,
                            refusal: refusal)
    }

    // MARK: Saved states

    /// The host on `connection` saved a state for `screen` (one it hosts): remembered as its author
    /// when the policy gives saved states only to the same program.
    mutating func saved(_ screen: UInt64, by connection: UInt64, hostsIt: Bool) {
        guard policy.savedState == .sameIdentity, hostsIt else { return }
        savers[ScreenID(rawValue: screen)] = identity(of: connection)
    }

    /// A screen command on its way to `host`: a `Place` carrying a saved state loses it when the
    /// policy does not give that state to this host (its author is another program, or unknown);
    /// the screen is then placed with its current state from the flow alone. Anything else passes.
    mutating func command(_ outgoing: ScreenDelivery.Outgoing, to host: UInt64) -> ScreenDelivery.Outgoing {
        guard policy.savedState != .anyHost else { return outgoing }
        switch outgoing.command {
        case .place(let place) where !place.savedState.isEmpty:
            let next = identity(of: host)
            if policy.allowsSavedState(from: savers[place.screen], to: next) { return outgoing }
            var withheld = place
            withheld.savedState = .init()
            var changed = outgoing
            changed.command = .place(withheld)
            return changed
        case .dismiss(let screen, _, _):
            savers[screen] = nil
            return outgoing
        default:
            return outgoing
        }
    }

    /// Forgets the authors of screens no longer live (called when the table outgrows `live`).
    mutating func forgetSavers(keeping live: (ScreenID) -> Bool) {
        savers = savers.filter { live($0.key) }
    }

    /// Authors remembered.
    var saverCount: Int { savers.count }
}
