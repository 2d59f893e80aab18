import FlowKit

/// How the hosts part words and counts what the delivery did to keep screens alive, and what became
/// of a hung host. The rules that restart, hold and resume screens are `ScreenDelivery`'s; this part
/// learns from its reports which hosts' screens are held (their tokens stay good).
extension Hosts {
    /// Counts what the delivery did to keep screens alive and says it (nil: not a survival action);
    /// `owner` is the flow of the action's screen. A resume that expired spends its token.
    mutating func report(_ action: ScreenDelivery.Action, owner: FlowID?) -> Notice? {
        switch action {
        case .restarted(let screen, let kind, let attempt, let policy):
            counts.screenRestarts += 1
            return Notice(.notice, "screen process crashed; restarting it", [
                "screen": "\(screen)", "kind": "\(kind)", "attempt": "\(attempt)", "policy": "\(policy)",
            ], event: .init(kind: .screenRestarted, screen: screen, flow: owner, name: kind,
                            text: "restarting \(kind) \(screen) (restart \(attempt), policy \(policy))"))
        case .restartGaveUp(let screen, let kind, let restarts, let policy):
            counts.restartsGivenUp += 1
            return Notice(.warning, "screen process keeps crashing; restart policy gave up", [
                "screen": "\(screen)", "kind": "\(kind)", "restarts": "\(restarts)", "policy": "\(policy)",
            ], event: .init(kind: .restartGaveUp, screen: screen, flow: owner, name: kind,
                            text: "gave up on \(kind) \(screen) after \(restarts) restarts (policy \(policy)); its flow is told"))
        case .detached(let host, let count):
            holding(host)
            return Notice(.notice, "screen host disconnected; holding its screens for it to resume", [
                "connection": "\(host)", "screens": "\(count)", "grace_ms": "\(resumeGrace)",
            ], event: .init(kind: .hostDetached, connection: host, text: "#\(host) dropped; \(count) screens held \(resumeGrace) ms for it to resume"))
        case .resumed(let host, let old, let count):
            counts.hostsResumed += 1
            released(old)
            return Notice(.info, "screen host resumed", ["connection": "\(host)", "was": "\(old)", "screens": "\(count)"],
                          event: .init(kind: .hostResumed, connection: host, text: "#\(host) resumed the \(count) screens of #\(old)"))
        case .resumeExpired(let host, let count):
            counts.resumesExpired += 1
            released(host, spending: .expired)
            return Notice(.notice, "dropped screen host did not resume in time; its screens wait for the next host of their kinds", [
                "connection": "\(host)", "screens": "\(count)",
            ], event: .init(kind: .resumeExpired, connection: host,
                            text: "#\(host) did not resume within \(resumeGrace) ms; its \(count) screens wait for the next host of their kinds"))
        default:
            return nil
        }
    }

    /// What is said of a hung host, counted.
    mutating func hungNotice(_ host: UInt64, label: String, silentFor: UInt64, killed: Bool) -> Notice {
        counts.hostsHung += 1
        let timeout = watchdogTimeout
        return Notice(.warning, "screen host is hung: commands unacknowledged and no Pong; \(killed ? "killing it" : "disconnecting it")", [
            "connection": "\(label)", "silent_ms": "\(silentFor)", "hang_timeout_ms": "\(timeout)",
        ], event: .init(kind: .hostHung, connection: host, text: """
            \(label) answered no Ping for \(silentFor) ms with commands unacknowledged; \
            \(killed ? "killed (SIGKILL)" : "disconnected (it may resume)")
            """))
    }
}
