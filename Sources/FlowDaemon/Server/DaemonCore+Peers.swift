import FlowApp
import FlowKit
import FlowWire

#if canImport(Glibc)
import Glibc
#endif

/// The enforcement points of the app's policy (`PeerRegistry`), each one call from where the core
/// handles the frame: the handshake, `OpenLink`, the debug requests, a saved state received, and a
/// screen command going to a host.
extension DaemonCore {
    /// The handshake's check: a fatal `UNAUTHORIZED` naming the rule, or nil.
    func peerRefusal(of agreement: ConnectionStateMachine.Agreement, on connection: Connection) -> ConnectionStateMachine.Violation? {
        peers.refusal(of: agreement, on: connection.id, spawned: connection.protocolState.origin.isSpawned)
    }

    /// `OpenLink` from a peer the policy does not let open links: answered with a non-fatal
    /// `UNAUTHORIZED` (`reply_to` its seq), and nothing else happens. True when refused.
    mutating func refusesLink(seq: UInt64, on connection: Connection) -> Bool {
        guard let refusal = peers.refusalToOpenLink(from: connection.id) else { return false }
        logRefusal(refusal, "OpenLink", on: connection)
        send(.error(refusal), to: connection, replyTo: seq)
        return true
    }

    /// A debug request: one past the client's power is answered with a non-fatal `UNAUTHORIZED`
    /// and not performed. Injections and terminations are audited, refused or not (one entry and
    /// one rate-limited log line each). True when refused.
    mutating func refusesDebug(_ body: Flowd_V1_Envelope.OneOf_Body, seq: UInt64, on connection: Connection) -> Bool {
        let refusal = peers.refusal(ofDebug: body, from: connection.id)
        if let entry = peers.audit(body, from: connection.id, refusal: refusal?.message, time: loop.wallClock) {
            throttle.log(logger, .notice, "audit", "audit: debug client \(entry.refusal == nil ? "asked for" : "was refused") \(entry.action)", [
                "audit": "\(entry.seq)", "connection": "\(connection.label)", "target": "\(entry.target)",
                "peer": "\(entry.identity.summary.bounded(1024))",
            ], now: loop.now)
        }
        guard let refusal else { return false }
        if PeerRegistry.audited(body) == nil { logRefusal(refusal, body.name, on: connection) }
        send(.error(refusal), to: connection, replyTo: seq)
        return true
    }

    /// A `SaveState` from `connection`: its author is remembered if it hosts the screen (the app
    /// refuses it otherwise).
    mutating func savedStateReceived(_ saved: Flowd_V1_SaveState, on connection: Connection) {
        guard peers.policy.savedState == .sameIdentity else { return }
        peers.saved(saved.screenID, by: connection.id, hostsIt: app.delivery.screens[ScreenID(rawValue: saved.screenID)]?.host == connection.id)
        // Authors of screens gone without a `Dismiss` (lost with a host) are dropped now and then.
        if peers.saverCount > 1024, peers.saverCount > 2 * app.delivery.screens.count {
            peers.forgetSavers { [delivery = app.delivery] in delivery.screens[$0] != nil }
        }
    }

    /// A spawned process's connection: its identity is its factory.
    mutating func spawnedPeer(_ connection: UInt64, kind: String, pid: Int32) {
        var executable: String?
        if case .spawn(let path, _, _, _, _)? = app.app?.factory(for: kind).resolved { executable = path }
        peers.connected(connection, as: PeerRegistry.spawned(kind: kind, pid: pid, executable: executable, uid: getuid(), gid: getgid()))
    }

    private func logRefusal(_ refusal: Flowd_V1_Error, _ what: String, on connection: Connection) {
        throttle.log(logger, .notice, "refused.policy", "refused by the app's policy", [
            "connection": "\(connection.label)", "request": "\(what)", "reason": "\(refusal.message.bounded(1024))",
        ], now: loop.now)
    }
}
