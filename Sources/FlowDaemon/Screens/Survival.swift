import FlowKit
#if canImport(Glibc)
import Glibc
#endif

/// What keeps screens alive when their hosts fail, as one part: the resume tokens of attached
/// hosts, the hang watchdog, and the counts `Stats` reports (the spawned processes are
/// `ScreenProcesses`'). The rules that restart, hold and resume
/// screens are `ScreenDelivery`'s; this part counts and words what they did (`report`) and decides
/// what becomes of a hung host (`hung`). It reads nothing of the other parts: what it needs comes in.
struct Survival {
    /// Counts of what the daemon did to keep screens alive, for `Stats`.
    struct Counts {
        var screenRestarts: UInt64 = 0
        var restartsGivenUp: UInt64 = 0
        var hostsResumed: UInt64 = 0
        var resumesExpired: UInt64 = 0
        var hostsHung: UInt64 = 0
    }

    /// What becomes of a hung host.
    enum HungHost {
        /// A spawned process: SIGKILL, and its restart policy applies.
        case kill(any SpawnedHost)
        /// An attached host: told why, then disconnected; it may resume with its token.
        case disconnect(message: String)
    }

    /// Resume tokens issued to attached hosts in this run.
    var tokens = ResumeTokens()
    /// Pings hosts with commands unacknowledged and finds hung ones (nil: `hangTimeout` 0).
    var watchdog: HangWatchdog?
    /// Restarts, resumes and hangs so far.
    private(set) var counts = Counts()
    /// How long a dropped attached host's screens are held for it, in milliseconds (for the reports).
    private let resumeGrace: UInt64

    init(hangTimeout: UInt64, resumeGrace: UInt64) {
        watchdog = hangTimeout > 0 ? HangWatchdog(timeout: hangTimeout) : nil
        self.resumeGrace = resumeGrace
    }

    /// When the watchdog ticks next.
    var nextDeadline: UInt64? { watchdog?.nextTick }

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
            return Notice(.notice, "screen host disconnected; holding its screens for it to resume", [
                "connection": "\(host)", "screens": "\(count)", "grace_ms": "\(resumeGrace)",
            ], event: .init(kind: .hostDetached, connection: host, text: "#\(host) dropped; \(count) screens held \(resumeGrace) ms for it to resume"))
        case .resumed(let host, let old, let count):
            counts.hostsResumed += 1
            return Notice(.info, "screen host resumed", ["connection": "\(host)", "was": "\(old)", "screens": "\(count)"],
                          event: .init(kind: .hostResumed, connection: host, text: "#\(host) resumed the \(count) screens of #\(old)"))
        case .resumeExpired(let host, let count):
            counts.resumesExpired += 1
            tokens.retire(host, because: .expired)
            return Notice(.notice, "dropped screen host did not resume in time; its screens wait for the next host of their kinds", [
                "connection": "\(host)", "screens": "\(count)",
            ], event: .init(kind: .resumeExpired, connection: host,
                            text: "#\(host) did not resume within \(resumeGrace) ms; its \(count) screens wait for the next host of their kinds"))
        default:
            return nil
        }
    }

    /// The watchdog found `host` (`label`) hung, silent for `silentFor` ms with commands
    /// unacknowledged: a spawned process (`child`) is killed (its exit brings the restart policy in), an
    /// attached host disconnected (it may resume). Other hosts are untouched.
    mutating func hung(_ host: UInt64, label: String, silentFor: UInt64, child: (any SpawnedHost)?) -> (Notice, HungHost) {
        counts.hostsHung += 1
        let timeout = watchdog?.timeout ?? 0
        let notice = Notice(.warning, "screen host is hung: commands unacknowledged and no Pong; \(child == nil ? "disconnecting it" : "killing it")", [
            "connection": "\(label)", "silent_ms": "\(silentFor)", "hang_timeout_ms": "\(timeout)",
        ], event: .init(kind: .hostHung, connection: host, text: """
            \(label) answered no Ping for \(silentFor) ms with commands unacknowledged; \
            \(child == nil ? "disconnected (it may resume)" : "killed (SIGKILL)")
            """))
        if let child { return (notice, .kill(child)) }
        return (notice, .disconnect(message: "no Pong within \(timeout) ms with commands unacknowledged; reconnect with your resume token"))
    }
}
