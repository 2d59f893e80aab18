import FlowApp
import FlowKit
import FlowWire
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Every screen host's life, by host (connection) id, as one part: its handshake and resume, the
/// resume tokens of attached hosts, the hang watchdog, the processes flowd spawned (from spawn to
/// reaping, with their exit grace), and the counts `Stats` reports. It takes what happened to a host
/// (`join`, `heard`, `pong`, `closed`, `exited`, `expire(now:)`) and returns what must be done, as
/// `Action`s the core performs in order: it never sees a connection, and reads no other part. Where
/// a host's screens go is `ScreenDelivery`'s to decide; this part hands it the host's inputs
/// (`Action.delivery`) and learns what it did from its reports (`report`).
struct Hosts {
    /// What the core does for the hosts, in order.
    enum Action {
        /// Send `Ping {nonce}` to the host.
        case ping(host: UInt64, nonce: UInt64)
        /// The host is hung and flowd spawned it: SIGKILL the process and close its connection now
        /// (its exit brings the restart policy in).
        case kill(host: UInt64, any SpawnedHost)
        /// Tell the host `shutdown`, hand it to the kernel if it takes it, and close the connection
        /// now: a hung attached host (it may resume), or one whose own resume token came on a new
        /// connection.
        case disconnect(host: UInt64, Flowd_V1_Shutdown)
        /// Send `signal` to a process that outstays its reason to exit.
        case signal(any SpawnedHost, Int32)
        /// Log a line and emit its event.
        case tell(Notice)
        /// An input of the app's delivery, about a host.
        case delivery(DeliveryInput)
    }

    /// What the app's half is told about a host.
    enum DeliveryInput {
        /// The host finished its handshake (`resuming`: the dropped host whose screens it takes).
        case joined(host: UInt64, label: String, pid: Int32, provides: [String], spawned: Bool, resuming: UInt64?)
        /// The host's connection closed (`resumable`: its screens may be held for it).
        case left(host: UInt64, resumable: Bool)
        /// The process flowd started on connection `host` exited.
        case exited(host: UInt64, abnormally: Bool)
    }

    /// What a screen host's handshake came to.
    enum Join: Equatable {
        /// Not a screen host of an app: a debug client the policy admits, or no app runs.
        case notAHost
        /// A screen host, admitted; `resumeToken` (empty: none) goes in its `Welcome`, `resumed` says
        /// whether it took a dropped host's screens.
        case admitted(resumeToken: String, resumed: Bool)
        /// Refused; the handshake's answer is this error, and the connection closes.
        case refused(code: Flowd_V1_ErrorCode, message: String)
    }

    /// A host that finished its handshake.
    private struct Member {
        let label: String
        let pid: Int32
        let provides: [String]
    }

    /// Resume tokens issued to attached hosts in this run.
    private var tokens = ResumeTokens()
    /// Pings hosts with commands unacknowledged and finds hung ones (nil: `hangTimeout` 0).
    private var watchdog: HangWatchdog?
    /// The processes flowd spawned, and the exit grace of those that must go.
    private var processes: SpawnedProcesses
    /// Starts processes for the app's spawn factories.
    let starter: ProcessStarter
    /// Who each peer is and what the app's policy lets it do (`Hosts+Peers.swift`).
    var peers: PeerRegistry
    /// Where policy refusals and the audit are logged, at a bounded rate.
    let logger: Logger
    let throttle: LogThrottle
    /// Screen hosts past their handshake.
    private var members: [UInt64: Member] = [:]
    /// The kinds each attached host that left with a live token provided, until its token is spent:
    /// a peer resuming its screens must be one the policy lets provide them.
    private var leftKinds: [UInt64: [String]] = [:]
    /// Hosts displaced by their own resume token whose connections have not closed yet.
    private var displaced: Set<UInt64> = []
    /// Hosts whose screens the delivery holds for them to resume (from its reports).
    private var held: Set<UInt64> = []
    /// Attached hosts that left with a live token, until the delivery said whether it holds their
    /// screens (its report comes in the same step): a token whose host's screens are not held is spent.
    private var departed: [UInt64] = []
    /// Whether a resume grace is configured: attached hosts get tokens.
    private let issuesTokens: Bool
    /// Whether an app runs (without one, no host has screens).
    private let runsApp: Bool
    /// How long a dropped attached host's screens are held for it, in milliseconds (`Welcome`, the reports).
    let resumeGrace: UInt64
    /// The daemon's name and version, for `Welcome`.
    private let server: String
    /// Whether the daemon takes new work: a resume that displaces a live connection happens only then.
    private var isRunning = true
    /// Restarts, resumes and hangs so far.
    var counts = Counts()
    /// What the core is to do, in order; taken by `takeActions()`.
    private var actions: [Action] = []

    /// Counts of what the daemon did to keep screens alive, for `Stats`.
    struct Counts {
        var screenRestarts: UInt64 = 0
        var restartsGivenUp: UInt64 = 0
        var hostsResumed: UInt64 = 0
        var resumesExpired: UInt64 = 0
        var hostsHung: UInt64 = 0
    }

    init(configuration: DaemonConfiguration, app: FlowApp.App?, spawner: any ScreenSpawner, logger: Logger, throttle: LogThrottle) {
        peers = PeerRegistry(policy: app?.policy ?? .sameUser)
        self.logger = logger
        self.throttle = throttle
        watchdog = configuration.hangTimeoutMilliseconds > 0 ? HangWatchdog(timeout: configuration.hangTimeoutMilliseconds) : nil
        resumeGrace = configuration.resumeGraceMilliseconds
        server = configuration.server
        issuesTokens = configuration.resumeGraceMilliseconds > 0
        runsApp = app != nil
        processes = SpawnedProcesses(grace: configuration.spawnExitGraceMilliseconds)
        starter = ProcessStarter(app: app, spawner: spawner)
    }

    // MARK: Events

    /// A connection's handshake agreed on `role`: a peer the app's policy does not admit for it is
    /// refused (`UNAUTHORIZED`, naming the rule); a screen host is admitted (taking the screens of the
    /// dropped host whose `resumeToken` it presents, if any) or refused. A token whose connection is
    /// still open proves that connection dead (the host saw it drop first): it is closed, its screens
    /// held, and the new one resumes them.
    mutating func join(_ host: UInt64, label: String, pid: Int32, role: ConnectionStateMachine.Role, provides: [String], resumeToken: String,
                       spawned: Bool) -> Join {
        if let refusal = peers.refusal(role: role, provides: provides, on: host, spawned: spawned) {
            return .refused(code: refusal.code, message: refusal.message)
        }
        guard role == .screenHost, runsApp else { return .notAHost }
        spendDepartedTokens()
        var resuming: UInt64?
        if !resumeToken.isEmpty {
            switch redeem(resumeToken) {
            case .success(let old):
                // The old host's screens are of its kinds: the policy must let this peer provide them.
                if let refusal = peers.refusal(role: .screenHost, provides: leftKinds[old] ?? [], on: host, spawned: false) {
                    return .refused(code: refusal.code, message: "resume refused: \(refusal.message)")
                }
                resuming = old
            case .failure(.stillConnected) where isRunning:
                guard let old = tokens.host(of: resumeToken), let member = members[old] else {
                    return .refused(code: .resumeRefused, message: "resume refused: \(ResumeTokens.Refusal.stillConnected)")
                }
                if let refusal = peers.refusal(role: .screenHost, provides: member.provides, on: host, spawned: false) {
                    return .refused(code: refusal.code, message: "resume refused: \(refusal.message)")
                }
                displace(old, by: host)
                tokens.retire(old, because: .used)
                resuming = old
            case .failure(let refusal):
                return .refused(code: .resumeRefused, message: "resume refused: \(refusal)")
            }
        }
        members[host] = Member(label: label, pid: pid, provides: provides)
        actions.append(.delivery(.joined(host: host, label: label, pid: pid, provides: provides, spawned: spawned, resuming: resuming)))
        let token = !spawned && issuesTokens ? tokens.issue(for: host) : ""
        return .admitted(resumeToken: token, resumed: resuming != nil)
    }

    /// The `Welcome` that answers `host`'s handshake (`agreement`) once `join` admitted it, for the
    /// daemon running `app`.
    func welcome(_ join: Join, to host: UInt64, agreement: ConnectionStateMachine.Agreement, app: String) -> Flowd_V1_Welcome {
        var welcome = Flowd_V1_Welcome()
        welcome.version = agreement.version
        welcome.connectionID = host
        welcome.server = server
        welcome.maxFrameSize = UInt32(agreement.maxFrameSize)
        welcome.app = app
        if case .admitted(let token, let resumed) = join, !token.isEmpty {
            welcome.resumeToken = token
            welcome.resumeGraceMs = UInt32(clamping: resumeGrace)
            welcome.resumed = resumed
        }
        return welcome
    }

    /// `old`'s own resume token came on connection `host`: `old` is told, closed and left; its screens
    /// are held (the daemon runs and holds screens) for `host` to resume.
    private mutating func displace(_ old: UInt64, by host: UInt64) {
        actions.append(.tell(Notice(.notice, "resume token presented while its connection is open; closing the old one", [
            "connection": "#\(host)", "old": "\(members[old]?.label ?? "#\(old)")",
        ])))
        // Told first, as every connection the daemon closes on purpose (protocol.md §11).
        actions.append(.disconnect(host: old, .init(reason: .unspecified, message: """
            replaced: this host's resume token was presented by connection #\(host); this connection is closed \
            and its screens go to the new one
            """)))
        leave(old, resumable: true, now: nil)
    }

    /// The token's host, consuming the token; or why not.
    private mutating func redeem(_ token: String) -> Result<UInt64, ResumeTokens.Refusal> {
        tokens.redeem(token) { [held] in held.contains($0) }
    }

    /// Bytes arrived from `host`: a host that sends is alive, whatever its `Pong` waits behind.
    @inline(__always)
    mutating func heard(_ host: UInt64, now: UInt64) {
        if watchdog?.isPinging == true { watchdog?.heard(from: host, now: now) }
    }

    /// A `Pong` from `host`.
    mutating func pong(_ host: UInt64, nonce: UInt64) {
        watchdog?.pong(from: host, nonce: nonce)
    }

    /// `host`'s connection closed (`resumable`: it did not say goodbye or break the protocol): the
    /// delivery is told, and a process flowd started for it must exit within its grace.
    mutating func closed(_ host: UInt64, resumable: Bool, now: UInt64) {
        leave(host, resumable: resumable, now: now)
    }

    private mutating func leave(_ host: UInt64, resumable: Bool, now: UInt64?) {
        watchdog?.forget(host)
        if now != nil { peers.closed(host) }
        let member = members.removeValue(forKey: host)
        // A host displaced by its own token left then; its connection's close arrives later. Every
        // other closed connection goes to the delivery, which ignores hosts it does not know (a debug
        // client, a handshake never finished) and must hear of a spawned process's connection even
        // when the process exited first.
        guard runsApp, displaced.remove(host) == nil else { return }
        if tokens.hasToken(host) {
            departed.append(host)
            leftKinds[host] = member?.provides ?? []
        }
        actions.append(.delivery(.left(host: host, resumable: resumable)))
        if let now { processes.mustExit(connection: host, now: now) } else { displaced.insert(host) }
    }

    /// Tokens of hosts that left and whose screens the delivery did not hold are spent: a later
    /// attempt is told that its host left for good.
    private mutating func spendDepartedTokens() {
        guard !departed.isEmpty else { return }
        for host in departed where !held.contains(host) {
            tokens.retire(host, because: .hostLeft)
            leftKinds[host] = nil
        }
        departed.removeAll()
    }

    /// A spawned process of `kind` exited (its handle is closed): it is forgotten, and the delivery
    /// restarts, holds or loses its screen.
    mutating func exited(_ child: any SpawnedHost, kind: String) {
        processes.exited(child)
        actions.append(.tell(Notice(.info, "screen process exited", ["pid": "\(child.pid)", "kind": "\(kind)", "how": "\(child.exitDescription)"],
                                    event: .init(kind: .processExited, screen: child.screen, connection: child.connectionID, name: kind,
                                                 text: "pid \(child.pid) (\(kind)) exited with \(child.exitDescription)"))))
        actions.append(.delivery(.exited(host: child.connectionID, abnormally: child.exitedAbnormally)))
    }

    /// A process `starter` started runs: it is kept until it exits.
    mutating func started(_ child: any SpawnedHost) { processes.adopt(child) }

    /// The process on connection `host` is no longer needed (`reason`): it is told, and must exit
    /// within the grace.
    mutating func retire(_ host: UInt64, reason: String, now: UInt64) {
        processes[connection: host]?.retire(reason: reason)
        processes.mustExit(connection: host, now: now)
    }

    /// The pooled process on connection `host` now shows `screen`; its pid (0: not a process of flowd's).
    mutating func assign(_ screen: ScreenID, to host: UInt64) -> Int32 {
        guard let child = processes[connection: host] else { return 0 }
        child.assign(screen)
        return child.pid
    }

    /// The delivery holds `host`'s screens for it to resume: its token stays good.
    mutating func holding(_ host: UInt64) { held.insert(host) }

    /// The delivery no longer holds `host`'s screens (resumed, or the grace ended: `spending` says why
    /// its token is spent).
    mutating func released(_ host: UInt64, spending reason: ResumeTokens.Refusal? = nil) {
        held.remove(host)
        leftKinds[host] = nil
        if let reason { tokens.retire(host, because: reason) }
    }

    /// How long a pinged host has to answer, in milliseconds (0: no watchdog).
    var watchdogTimeout: UInt64 { watchdog?.timeout ?? 0 }

    /// The daemon's shutdown began: no resume displaces a live connection.
    mutating func stopTakingWork() { isRunning = false }

    /// The daemon stops: every process must exit within its grace.
    mutating func mustAllExit(now: UInt64) { processes.mustAllExit(now: now) }

    // MARK: Time

    /// The earliest of the watchdog's tick and the processes' exit signals.
    var nextDeadline: UInt64? {
        // In place: as a plain getter, the daemon's loop passed a copy of all the hosts (a `memcpy`
        // per iteration, callgrind `flowd-relay`).
        mutating get {
            var next = watchdog?.nextTick
            DeadlineFold.fold(processes.nextDeadline, into: &next)
            return next
        }
    }

    /// Commands may be waiting for acks from `now` on: the watchdog ticks.
    mutating func acksAwaited(now: UInt64) { watchdog?.wake(now: now) }

    /// What is due at `now`: processes that outstay their reason to exit are signalled; the watchdog
    /// pings hosts with commands unacknowledged (`awaitingAcks`, the delivery's) and finds hung ones
    /// among those whose connections are open (`isOpen`).
    mutating func expire(now: UInt64, awaitingAcks: @autoclosure () -> Set<UInt64>, isOpen: (UInt64) -> Bool) {
        for (child, signal) in processes.expire(now: now) {
            actions.append(.signal(child, signal))
            actions.append(.tell(Notice(.warning, "screen process outstays its screen; sending \(signal == SIGTERM ? "SIGTERM" : "SIGKILL")", [
                "pid": "\(child.pid)", "connection": "\(child.connectionID)",
            ])))
        }
        guard var dog = watchdog, let tick = dog.nextTick, tick <= now else { return }
        let verdicts = dog.tick(now: now, awaitingAcks: awaitingAcks())
        watchdog = dog
        for verdict in verdicts {
            switch verdict {
            case .ping(let host, let nonce):
                if isOpen(host) { actions.append(.ping(host: host, nonce: nonce)) }
            case .hung(let host, let silentFor):
                guard isOpen(host) else { continue }
                hung(host, silentFor: silentFor)
            }
        }
    }

    /// The watchdog found `host` hung, silent for `silentFor` ms with commands unacknowledged: a
    /// spawned process is killed (its exit brings the restart policy in), an attached host
    /// disconnected (it may resume).
    private mutating func hung(_ host: UInt64, silentFor: UInt64) {
        let child = processes[connection: host]
        actions.append(.tell(hungNotice(host, label: members[host]?.label ?? "#\(host)", silentFor: silentFor, killed: child != nil)))
        if let child {
            actions.append(.kill(host: host, child))
        } else {
            let timeout = watchdog?.timeout ?? 0
            actions.append(.disconnect(host: host, .init(reason: .hung, message: """
                no Pong within \(timeout) ms with commands unacknowledged; reconnect with your resume token
                """)))
        }
    }

    // MARK: Actions

    /// Whether actions wait to be performed.
    var hasActions: Bool { !actions.isEmpty }

    /// The actions queued so far, in order; the queue is emptied.
    mutating func takeActions() -> [Action] {
        defer { actions.removeAll(keepingCapacity: true) }
        return actions
    }

    // MARK: Looking in

    /// Spawned processes not reaped yet.
    var processCount: Int { processes.count }
}
