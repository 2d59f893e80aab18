import FlowApp
import FlowKit
import FlowWire
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Who each peer is and what the app's policy lets it do (`PeerRegistry`, this part's), at each
/// enforcement point the core reaches in one call: the handshake (`join`), `OpenLink`, the debug
/// requests, a saved state received, and a screen command on its way to a host. Each refusal is a
/// non-fatal `UNAUTHORIZED` naming the rule (the handshake's is fatal), logged at a bounded rate.
extension Hosts {
    /// A peer of the named socket connected as `identity` (read from the kernel at accept).
    mutating func connected(_ connection: UInt64, as identity: PeerIdentity) {
        peers.connected(connection, as: identity)
    }

    /// The process `starter` started for `kind` runs on its connection: its identity is its factory.
    mutating func spawnedIdentity(_ child: any SpawnedHost, kind: String, executable: String?) {
        peers.connected(child.connectionID, as: PeerRegistry.spawned(kind: kind, pid: child.pid, executable: executable, uid: getuid(), gid: getgid()))
    }

    /// Who the peer on `connection` is.
    func identity(of connection: UInt64) -> PeerIdentity { peers.identity(of: connection) }

    /// The debug power of the client on `connection` (nil: none).
    func debugPower(of connection: UInt64) -> AppPolicy.DebugPower? { peers.debugPower(of: connection) }

    /// The audit log of injections and terminations, oldest first.
    var auditEntries: [AuditLog.Entry] { peers.audit.entries }

    /// `OpenLink` from `connection` (`label`): the error that answers it when the policy says no.
    func linkRefusal(from connection: UInt64, label: String, now: UInt64) -> Flowd_V1_Error? {
        guard let refusal = peers.refusalToOpenLink(from: connection) else { return nil }
        logRefusal(refusal, "OpenLink", label: label, now: now)
        return refusal
    }

    /// A debug request from `connection` (`label`): the error that answers it when the client's power
    /// is not enough. Injections and terminations are audited, refused or not (one entry and one
    /// rate-limited log line each); `time` is the wall clock, for the entry.
    mutating func debugRefusal(_ body: Flowd_V1_Envelope.OneOf_Body, from connection: UInt64, label: String, now: UInt64, time: UInt64) -> Flowd_V1_Error? {
        let refusal = peers.refusal(ofDebug: body, from: connection)
        if let entry = peers.audit(body, from: connection, refusal: refusal?.message, time: time) {
            throttle.log(logger, .notice, "audit", "audit: debug client \(entry.refusal == nil ? "asked for" : "was refused") \(entry.action)", [
                "audit": "\(entry.seq)", "connection": "\(label)", "target": "\(entry.target)", "peer": "\(entry.identity.summary.bounded(1024))",
            ], now: now)
        }
        guard let refusal else { return nil }
        if PeerRegistry.audited(body) == nil { logRefusal(refusal, body.name, label: label, now: now) }
        return refusal
    }

    /// Whether the policy gives saved states only to the program that saved them, so their authors
    /// are remembered (`savedState`); false under the default, and nothing is asked of the app.
    var remembersSavers: Bool { peers.policy.savedState == .sameIdentity }

    /// A `SaveState` for `screen` from `connection`, which hosts it or not: its author is remembered
    /// when the policy gives saved states only to the same program. Authors of screens gone without a
    /// `Dismiss` (lost with a host) are dropped when the table outgrows the `live` screens (`count`).
    mutating func savedState(_ screen: UInt64, by connection: UInt64, hostsIt: Bool, live: (count: Int, contains: (ScreenID) -> Bool)) {
        guard peers.policy.savedState == .sameIdentity else { return }
        peers.saved(screen, by: connection, hostsIt: hostsIt)
        if peers.saverCount > 1024, peers.saverCount > 2 * live.count { peers.forgetSavers(keeping: live.contains) }
    }

    /// A screen command on its way to `host`: a `Place` loses the saved state the policy does not give
    /// that host (one cheap comparison under the default policy).
    @inline(__always)
    mutating func command(_ outgoing: ScreenDelivery.Outgoing, to host: UInt64) -> ScreenDelivery.Outgoing {
        peers.passesEveryCommand ? outgoing : peers.command(outgoing, to: host)
    }

    private func logRefusal(_ refusal: Flowd_V1_Error, _ what: String, label: String, now: UInt64) {
        throttle.log(logger, .notice, "refused.policy", "refused by the app's policy", [
            "connection": "\(label)", "request": "\(what)", "reason": "\(refusal.message.bounded(1024))",
        ], now: now)
    }
}
