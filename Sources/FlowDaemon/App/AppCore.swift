import FlowApp
import FlowKit
import FlowWire
import Logging

/// The app's half of the daemon, as one value: the flows (the runtime), where their screens are
/// (the delivery), the journal (persistence), the flows' timers and work, the links waiting for a
/// dismissal, the warm pools decided and the contract watch. It takes what hosts and clients ask,
/// by host id, and never sees a connection: what must reach a host or a client, start a process or
/// stop the daemon comes out as `Action`s, in order, for `DaemonCore` to perform. A performed
/// action may answer back (`spawned`, `spawnFailed`), which adds actions after it: data goes one
/// way, from the daemon's events through the app to the hosts.
struct AppCore {
    /// What the daemon does for the app. The cases other than `.command` are rare, and boxed
    /// (`indirect`) so that an action is as small as a screen command: the hot path moves one per
    /// command.
    enum Action {
        /// A frame to a host or a client (`replyTo`: the seq of the request it answers, or 0).
        indirect case send(Flowd_V1_Envelope.OneOf_Body, to: UInt64, replyTo: UInt64)
        /// A screen command to its host, with the content type of the screen's states.
        case command(ScreenDelivery.Outgoing, to: UInt64, stateContentType: String)
        /// Start a process of `kind` for a screen (nil: for the kind's warm pool); the answer is
        /// `spawned`/`spawnFailed` (`pooledSpawned`/`pooledSpawnFailed`).
        case spawn(ScreenID?, kind: String)
        /// The host on `host` is not needed any more: it is told `shutdown` and closed, and its
        /// process (if flowd started it) must exit, for `reason`.
        indirect case retire(host: UInt64, shutdown: Flowd_V1_Shutdown, reason: String)
        /// The pooled process of `kind` on `host` now shows `screen`.
        case assignPooled(ScreenID, kind: String, host: UInt64)
        /// A restart, a resume or a detachment, for survival to count and tell.
        indirect case survival(ScreenDelivery.Action, owner: FlowID?)
        /// Every flow is unwound (the shutdown's unwinding completed).
        case flowsUnwound
        /// The app ended: the daemon stops.
        case stop(Flowd_V1_Shutdown.Reason, message: String)
    }

    /// The configuration the daemon was started with.
    let configuration: DaemonConfiguration
    /// The app, if the daemon runs one.
    let app: FlowApp.App?
    /// Every kind the app names (`App.kinds`), computed once: hosts offering others are told.
    let appKinds: Set<String>
    let logger: Logger
    /// Bounds the log lines a peer can cause (shared with `DaemonCore`).
    let throttle: LogThrottle
    /// The loop's clock (`now`, the wall clock) and the one thread everything runs on.
    let loop: any DaemonLoop
    /// Carries a flow's work result from another thread back to the loop (set once, by the daemon).
    var workFinished: @Sendable (ExternalWorkResult, any LoopInbox) -> Void = { _, _ in }
    /// The name of the app, reported in `Welcome`.
    var appName: String { app?.name ?? "none" }

    /// The flows and the navigation model (nil when no app runs, and once the daemon stopped).
    private(set) var runtime: FlowRuntime?
    /// Which host shows which screen, serials, held commands and ack deadlines.
    var delivery: ScreenDelivery
    /// The journal, the applied input keys and the restore: what keeps the app across restarts.
    var persistence: Persistence
    /// The event stream, the terminations waiting for their unwinding, and the contract watch.
    var debug: DebugSurface
    /// The displays (flowd-shell) and the secrets of the screens' placements (`AppCore+Displays`).
    var displays = Displays()
    /// `OpenLink` requests waiting for the dismissals in flight (`AppCore+Links.swift`).
    var waitingLinks = WaitingLinks()
    /// The flows' timers and work the daemon started (`AppCore+Requests.swift`).
    var requests = DaemonRequests()
    /// Kinds whose warm pool size was read from their factory.
    var poolsDecided: Set<String> = []
    /// How the app ended, once it did.
    private(set) var outcome: FlowApp.AppOutcome?
    /// Whether the app takes new work: false once the daemon's shutdown began.
    private(set) var isRunning = true

    /// What the daemon is to do, in order; taken by `takeActions(into:)`.
    private var actions: [Action] = []
    /// Reused between inputs by `drive()`, so applying effects allocates nothing in the steady state.
    var effectBuffer: [RuntimeEffect] = []
    /// Reused between commands by `deliver`.
    var deliveryBuffer: [ScreenDelivery.Action] = []

    init(configuration: DaemonConfiguration, app: FlowApp.App?, logger: Logger, loop: any DaemonLoop,
         throttle: LogThrottle = LogThrottle()) {
        self.configuration = configuration
        self.throttle = throttle
        self.app = app
        self.appKinds = Set(app?.kinds ?? [])
        self.logger = logger
        self.loop = loop
        self.persistence = Persistence(compactAfterInputs: configuration.compactAfterInputs, backlogLimit: configuration.journalBacklogLimit)
        self.delivery = ScreenDelivery(ackTimeout: configuration.ackTimeoutMilliseconds, resumeGrace: configuration.resumeGraceMilliseconds)
        self.delivery.kindsLostWithTheirHost = app?.kindsLostWithTheirHost ?? []
        self.delivery.maxScreensPerHost = configuration.maxScreensPerHost
        self.debug = DebugSurface(events: EventBus(), contract: ContractWatch(hostWait: configuration.hostWaitMilliseconds, appName: app?.name ?? "none"))
    }

    // MARK: Actions

    /// Queues what the daemon is to do.
    mutating func act(_ action: Action) { actions.append(action) }

    /// Whether actions wait to be performed.
    var hasActions: Bool { !actions.isEmpty }

    /// Moves the actions queued so far into `buffer` (emptied first; its storage is kept for the next call).
    mutating func takeActions(into buffer: inout [Action]) {
        if !buffer.isEmpty { buffer.removeAll(keepingCapacity: true) }
        swap(&buffer, &actions)
    }

    /// Writes a notice: the log line, then the event.
    func tell(_ notice: Notice) { notice.write(to: logger, events: debug.events) }

    /// Writes each of `notices`.
    func tell(_ notices: [Notice]) { for notice in notices { tell(notice) } }

    // MARK: Looking in

    /// Whether flows or screens are left to unwind.
    var hasFlows: Bool {
        (runtime?.liveFlowCount ?? 0) + (runtime?.liveScreenCount ?? 0) + (runtime?.pendingDismissals ?? 0) > 0
    }

    /// Flows and screens alive (the service manager's status).
    var liveCounts: (flows: Int, screens: Int) { (runtime?.liveFlowCount ?? 0, runtime?.liveScreenCount ?? 0) }

    /// The visible screen (nil without a runtime or a screen).
    var visibleScreen: ScreenID? { runtime?.visibleScreen }

    /// Everything of the runtime a restore must give back (nil without a runtime).
    func runtimeImage() -> RuntimeImage? { runtime?.image() }

    /// The host showing `screen` (nil: none, or no such screen).
    func host(of screen: UInt64) -> UInt64? { delivery.screens[ScreenID(rawValue: screen)]?.host }

    /// How many screens are delivered, and whether one is.
    var liveScreens: (count: Int, contains: (ScreenID) -> Bool) {
        let delivery = self.delivery
        return (delivery.screens.count, { delivery.screens[$0] != nil })
    }

    /// The executable the spawn factory of `kind` names (nil: not a spawned kind).
    func spawnExecutable(of kind: String) -> String? {
        if case .spawn(let path, _, _, _, _)? = app?.factory(for: kind).resolved { path } else { nil }
    }

    /// The delivery as it is now, a copy (tests and the embedded daemon look at it).
    var deliverySnapshot: ScreenDelivery { delivery }

    /// The parts of this half a debug view reads, with the daemon's (`connections`, `hosts`), for one call.
    func viewSources(connections: ConnectionTable, hosts: Hosts, openHandles: Int, program: String) -> DebugViews.Sources {
        DebugViews.Sources(appName: appName, runtime: runtime, delivery: delivery, connections: connections, hosts: hosts,
                           persistence: persistence, debug: debug, openHandles: openHandles, program: program)
    }

    /// Whether commands wait for acks (the hang watchdog ticks meanwhile).
    var awaitsAcks: Bool { mutating get { delivery.nextAckDeadline != nil } }

    /// Hosts with commands unacknowledged.
    var hostsAwaitingAcks: Set<UInt64> { delivery.hostsAwaitingAcks }

    /// Work started and not finished.
    var runningWorkCount: Int { requests.runningWorkCount }

    /// Timers started and not fired.
    var startedTimerCount: Int { requests.timers.count }

    /// Closes the journal without committing anything more, as a killed process would leave it.
    mutating func releaseJournalAfterCrash() { persistence.close() }

    /// Dismissals the runtime waits for (a restore completes those of the daemon before it).
    var pendingDismissals: Int { runtime?.pendingDismissals ?? 0 }

    /// The earliest of the app's deadlines: acks, the flows' timers, the journal's retry, host waits
    /// (`mutating` to read the parts in place, as `DaemonCore.nextDeadline`).
    var nextDeadline: UInt64? {
        mutating get {
            var next = delivery.nextDeadline
            DeadlineFold.fold(requests.nextDeadline, into: &next)
            DeadlineFold.fold(persistence.nextDeadline, into: &next)
            DeadlineFold.fold(debug.contract.nextDeadline, into: &next)
            return next
        }
    }

    /// Broken invariants of the runtime and of its agreement with the delivery (empty when sound):
    /// every placed screen is delivered, every delivered screen not being dismissed is placed. Scans
    /// everything: for tests and fuzzing.
    func invariantViolations() -> [String] {
        guard let runtime else { return delivery.screens.isEmpty ? [] : ["\(delivery.screens.count) screens delivered without a runtime"] }
        var problems = runtime.invariantViolations() + delivery.invariantViolations()
        // The model's nodes, not a debug tree: this runs after every step of a fuzzed program.
        let nodes = runtime.model.nodes
        for (id, node) in nodes where node.kind == .screen && delivery.screens[id] == nil { problems.append("screen \(id) is placed but not delivered") }
        for (id, screen) in delivery.screens where !screen.isDismissing && nodes[id]?.kind != .screen {
            problems.append("screen \(id) is delivered (\(screen.phase)) but not placed")
        }
        return problems
    }

    // MARK: Time

    /// What is due at `now`: ack deadlines, the flows' timers, screens that waited too long for a host.
    mutating func expire(now: UInt64) {
        persistence.expire(now: now)
        perform(delivery.expire(now: now))
        drive()
        fireRequestTimers(now: now)
        for screen in debug.contract.expire(now: now) {
            guard let waiting = delivery.screens[screen], waiting.phase == .waitingForHost else { continue }
            tell(debug.contract.withoutHost(screen, kind: waiting.kind, owner: runtime?.owner(of: screen)))
        }
    }

    /// Whether `OpenLink` requests wait for a dismissal (`openWaitingLinks`, at the end of each iteration).
    var hasWaitingLinks: Bool { !waitingLinks.isEmpty }

    // MARK: Life

    mutating func install(runtime: FlowRuntime) {
        self.runtime = runtime
    }

    /// The daemon's shutdown began: nothing new starts, the journal keeps the state and the place
    /// from before it, screens of hosts that leave are not held, and the warm pools stop.
    mutating func stopTakingWork() {
        guard isRunning else { return }
        isRunning = false
        let runtime = self.runtime
        let app = self.app
        let saved = delivery.savedStates
        persistence.freeze(place: { runtime.map(PlaceText.of) }, carried: {
            guard let runtime, let app else { return nil }
            return CarriedState.take(of: runtime, app: app, place: PlaceText.of(runtime), savedStates: saved)
        })
        delivery.holdsScreensOfLostHosts = false
        perform(delivery.stopPool())
    }

    /// The shutdown's unwinding: every flow is terminated while hosts are connected; `.flowsUnwound`
    /// says when it completed.
    mutating func unwindAll(message: String) {
        guard let runtime else { return }
        // Unwind every flow first, so screens get their Dismiss while their hosts are still connected.
        // The event comes first so that a replay knows what caused the dismissals.
        debug.events.emit(.shutdown, text: "shutting down (\(message)): unwinding \(runtime.liveFlowCount) flows")
        logger.info("unwinding flows", metadata: ["flows": "\(runtime.liveFlowCount)", "screens": "\(runtime.liveScreenCount)"])
        // The journal is frozen: this input is not journaled (a stop is not an ending).
        _ = try? feed(.terminateAll(animated: false))
        drive()
    }

    /// The daemon stopped: requests are dropped, the last commit is tried, the flows are released.
    mutating func finish() {
        requests.dropAll()
        persistence.commitBeforeExit(now: loop.now)
        persistence.journal?.drainSyncs()
        runtime = nil
    }

    mutating func recordOutcome(_ outcome: FlowApp.AppOutcome) {
        self.outcome = outcome
    }
}
