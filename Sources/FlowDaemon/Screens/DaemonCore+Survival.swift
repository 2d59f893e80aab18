import FlowKit
import FlowWire
#if canImport(Glibc)
import Glibc
#endif

/// Counts of what the daemon did to keep screens alive, for `Stats`.
struct SurvivalCounts {
    var screenRestarts: UInt64 = 0
    var restartsGivenUp: UInt64 = 0
    var hostsResumed: UInt64 = 0
    var resumesExpired: UInt64 = 0
    var hostsHung: UInt64 = 0
}

extension DaemonCore {
    /// Counts, logs and reports on the debug stream what the delivery did to keep screens alive.
    mutating func reportSurvival(_ action: ScreenDelivery.Action) {
        switch action {
        case .restarted(let screen, let kind, let attempt, let policy):
            survival.counts.screenRestarts += 1
            logger.notice("screen process crashed; restarting it", metadata: [
                "screen": "\(screen)", "kind": "\(kind)", "attempt": "\(attempt)", "policy": "\(policy)",
            ])
            debug.events.emit(.screenRestarted, screen: screen, flow: runtime?.owner(of: screen), name: kind,
                      text: "restarting \(kind) \(screen) (restart \(attempt), policy \(policy))")
        case .restartGaveUp(let screen, let kind, let restarts, let policy):
            survival.counts.restartsGivenUp += 1
            logger.warning("screen process keeps crashing; restart policy gave up", metadata: [
                "screen": "\(screen)", "kind": "\(kind)", "restarts": "\(restarts)", "policy": "\(policy)",
            ])
            debug.events.emit(.restartGaveUp, screen: screen, flow: runtime?.owner(of: screen), name: kind,
                      text: "gave up on \(kind) \(screen) after \(restarts) restarts (policy \(policy)); its flow is told")
        case .detached(let host, let count):
            logger.notice("screen host disconnected; holding its screens for it to resume", metadata: [
                "connection": "\(host)", "screens": "\(count)", "grace_ms": "\(configuration.resumeGraceMilliseconds)",
            ])
            debug.events.emit(.hostDetached, connection: host,
                      text: "#\(host) dropped; \(count) screens held \(configuration.resumeGraceMilliseconds) ms for it to resume")
        case .resumed(let host, let old, let count):
            survival.counts.hostsResumed += 1
            logger.info("screen host resumed", metadata: ["connection": "\(host)", "was": "\(old)", "screens": "\(count)"])
            debug.events.emit(.hostResumed, connection: host, text: "#\(host) resumed the \(count) screens of #\(old)")
        case .resumeExpired(let host, let count):
            survival.counts.resumesExpired += 1
            survival.tokens.retire(host, because: .expired)
            logger.notice("dropped screen host did not resume in time; its screens wait for the next host of their kinds", metadata: [
                "connection": "\(host)", "screens": "\(count)",
            ])
            debug.events.emit(.resumeExpired, connection: host,
                              text: "#\(host) did not resume within \(configuration.resumeGraceMilliseconds) ms; its \(count) screens wait for the next host of their kinds")
        default:
            break
        }
    }

    /// One watchdog tick: pings hosts with commands unacknowledged; a host that left the last ping
    /// unanswered for the hang timeout is killed (spawned: its restart policy applies) or
    /// disconnected (attached: it may resume). Other hosts are untouched.
    mutating func watchdogTick(now: UInt64) {
        guard var dog = survival.watchdog else { return }
        let actions = dog.tick(now: now, awaitingAcks: delivery.hostsAwaitingAcks) { [connections] in connections[$0]?.lastHeard }
        survival.watchdog = dog
        for action in actions {
            switch action {
            case .ping(let host, let nonce):
                if let connection = connections[host], !connection.isClosing {
                    var ping = Flowd_V1_Ping()
                    ping.nonce = nonce
                    send(.ping(ping), to: connection)
                }
            case .hung(let host, let silentFor):
                hostHung(host, silentFor: silentFor)
            }
        }
    }

    private mutating func hostHung(_ host: UInt64, silentFor: UInt64) {
        guard let connection = connections[host], !connection.isClosing else { return }
        survival.counts.hostsHung += 1
        let child = survival.spawned[connection: host]
        logger.warning("screen host is hung: commands unacknowledged and no Pong; \(child == nil ? "disconnecting it" : "killing it")", metadata: [
            "connection": "\(connection.label)", "silent_ms": "\(silentFor)", "hang_timeout_ms": "\(configuration.hangTimeoutMilliseconds)",
        ])
        debug.events.emit(.hostHung, connection: host,
                  text: "\(connection.label) answered no Ping for \(silentFor) ms with commands unacknowledged; \(child == nil ? "disconnected (it may resume)" : "killed (SIGKILL)")")
        if let child {
            // Its exit (by signal) brings the restart policy in. The connection is closed now, so
            // that a process slow to die (SIGKILL pending in uninterruptible sleep) is found once.
            child.send(SIGKILL)
            connection.forceClose()
            return
        }
        connection.queue(.shutdown(.init(reason: .hung, message: "no Pong within \(configuration.hangTimeoutMilliseconds) ms with commands unacknowledged; reconnect with your resume token")))
        // A hung peer will not drain its queue: hand the Shutdown to the kernel if it takes it
        // (try-write), then close now; it may still resume.
        connection.flush()
        connection.forceClose()
    }
}
