import FlowApp
import FlowKit
import FlowWire
import Foundation
import Logging
import UVKit

#if canImport(Glibc)
import Glibc
#endif

/// Everything the daemon knows, as one value: its parts (connections, the screen delivery, the
/// runtime, persistence, survival, the debug surface, requests, links, the service session and the
/// shutdown) and the steps that change them. `Daemon` holds it and enters it once per loop event
/// (a read, a close, a timer, a wake-up, a signal, a work result): the whole step runs inside that
/// one `inout` access, so the parts' fields are reached with static exclusivity, checked by the
/// compiler, and no dynamic check runs per field. The step never calls the `Daemon` back: what must
/// happen outside it (reading a new connection, a timer's callback, stopping the loop) goes through
/// `DaemonHooks`, whose closures touch only the daemon's own handles.
struct DaemonCore {
    /// The configuration the daemon was started with.
    var configuration: DaemonConfiguration
    /// The app this daemon runs, if any.
    let app: FlowApp.App?
    /// Every kind the app names (`App.kinds`), computed once: hosts offering others are told.
    let appKinds: Set<String>
    /// The name of the app, reported in `Welcome`.
    var appName: String { app?.name ?? "none" }
    let logger: Logger
    /// The flows and the navigation model (nil when no app runs).
    private(set) var runtime: FlowRuntime?
    /// Which host shows which screen, serials, held commands and ack deadlines.
    var delivery: ScreenDelivery
    /// Resume tokens, the hang watchdog, and the counts of what kept screens alive.
    var survival: Survival
    /// The screen processes spawned, the spawner, and the warm pools decided.
    var processes: ScreenProcesses
    /// The event stream, the terminations waiting for their unwinding, and the contract watch.
    var debug = DebugSurface()
    /// The journal, the applied input keys and the restore: what keeps the app across restarts.
    var persistence: Persistence
    /// `OpenLink` requests waiting for the dismissals in flight (`DaemonCore+Links.swift`).
    var waitingLinks = WaitingLinks()
    /// The flows' timers and work the daemon started (`DaemonCore+Requests.swift`).
    var requests = DaemonRequests()
    /// Reused between inputs by `drive()`, so applying effects allocates nothing in the steady state.
    var effectBuffer: [RuntimeEffect] = []
    /// Reused between commands by `drive()`.
    var actionBuffer: [ScreenDelivery.Action] = []
    /// How the app ended, once it did.
    private(set) var appOutcome: FlowApp.AppOutcome?
    /// The loop: clock, deadline timer, wake-ups.
    let loop: any DaemonLoop
    /// What the daemon tells its service manager (nil: not started by one that listens, or embedded).
    var service: ServiceSession?
    /// Every connection, its turns, writes and deadlines.
    private(set) var connections: ConnectionTable
    /// The deadline the loop's timer is armed for.
    private var armedDeadline: UInt64?
    /// The graceful shutdown's phases.
    private(set) var shutdown = ShutdownSequence()
    /// Where the daemon is in its life.
    var phase: DaemonPhase { shutdown.phase }
    /// What the core asks of the daemon around it (set once, by `Daemon`).
    var hooks = DaemonHooks()

    init(configuration: DaemonConfiguration, app: FlowApp.App?, logger: Logger, loop: any DaemonLoop, spawner: any ScreenSpawner) {
        self.configuration = configuration
        self.app = app
        self.appKinds = Set(app?.kinds ?? [])
        self.logger = logger
        self.persistence = Persistence(compactAfterInputs: configuration.compactAfterInputs)
        self.delivery = ScreenDelivery(ackTimeout: configuration.ackTimeoutMilliseconds, resumeGrace: configuration.resumeGraceMilliseconds)
        self.delivery.kindsLostWithTheirHost = app?.kindsLostWithTheirHost ?? []
        self.survival = Survival(hangTimeout: configuration.hangTimeoutMilliseconds, resumeGrace: configuration.resumeGraceMilliseconds)
        self.processes = ScreenProcesses(app: app, spawner: spawner, exitGrace: configuration.spawnExitGraceMilliseconds)
        self.connections = ConnectionTable(
            limits: .init(maxFrameSize: configuration.maxFrameSize, framesPerTurn: configuration.framesPerTurn,
                          inputsPerTurn: configuration.inputsPerTurn, frameTimeout: configuration.frameTimeoutMilliseconds,
                          writeQueueLimit: configuration.writeQueueLimit),
            handshakeTimeout: configuration.handshakeTimeoutMilliseconds, closeGrace: configuration.shutdownGraceMilliseconds)
        self.debug.contract = ContractWatch(hostWait: configuration.hostWaitMilliseconds, appName: app?.name ?? "none")
        self.loop = loop
    }

    /// Broken invariants of the runtime and of its agreement with the delivery (empty when sound):
    /// every placed screen is delivered, every delivered screen not being dismissed is placed. Scans
    /// everything: for tests and fuzzing.
    package func invariantViolations() -> [String] {
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

    // MARK: Accepting

    /// Takes a peer of the named socket: admitted by its uid, or refused.
    package mutating func accept(_ pipe: any ConnectionPipe, uid: UInt32?, pid: Int32) {
        loop.assertOnLoop()
        let connection = adopt(pipe, origin: .namedSocket(uid: uid), peerPID: pid)
        if phase != .running {
            connection.queue(.error(Flowd_V1_Error(code: .shuttingDown, message: "flowd is shutting down; try again later", fatal: true)))
            closeGracefully(connection)
            return
        }
        if let violation = ConnectionStateMachine.admit(connection.protocolState.origin, allowedUID: configuration.allowedUID) {
            logger.warning("refused connection", metadata: ["connection": "\(connection.label)", "reason": "\(violation.message)"])
            reject(connection, violation, replyTo: 0)
            return
        }
    }

    /// Takes a connected pipe (accepted, or the daemon's end of a spawned
    /// screen's socket pair) into the daemon: reading starts and the
    /// handshake deadline runs.
    @discardableResult
    mutating func adopt(_ pipe: any ConnectionPipe, origin: ConnectionStateMachine.Origin, peerPID: Int32) -> Connection {
        let connection = connections.add(pipe, origin: origin, peerPID: peerPID, now: loop.now)
        hooks.register(connection)
        logger.debug("connected", metadata: ["connection": "\(connection.label)"])
        debug.events.emit(.connected, connection: connection.id, text: "connection #\(connection.id) pid \(peerPID)")
        return connection
    }

    /// A connection's pipe closed: it leaves, and its screens are lost or held.
    mutating func connectionClosed(_ closed: Connection) {
        loop.assertOnLoop()
        connections.remove(closed.id)
        debug.events.unsubscribe(closed.id)
        logger.debug("closed", metadata: ["connection": "\(closed.label)"])
        debug.events.emit(.disconnected, connection: closed.id, text: "connection \(closed.label) closed")
        if app != nil { hostLeft(closed) }
        checkShutdownComplete()
        wakeIfWorkPending()
        // Close callbacks run after the iteration's end: the deadlines they changed are armed here.
        armDeadlineTimer()
    }

    /// The socket path spawned screens are told.
    package var socketPath: String { configuration.socketPath }

    /// Spawned processes not reaped yet.
    package var childCount: Int { processes.spawned.count }

    /// Ids of the connections the daemon holds, closing ones included.
    package var connectionIDs: [UInt64] { connections.ids }

    // MARK: Reading

    /// Whether `body` enters the flows (outputs, user navigation, links, injections, terminations):
    /// the frames whose work is counted against `inputsPerTurn`.
    private static func isFlowInput(_ body: Flowd_V1_Envelope.OneOf_Body) -> Bool {
        switch body {
        case .output, .userNavigation, .openLink, .injectOutput, .injectNavigation, .terminateFlow: true
        default: false
        }
    }

    mutating func received(_ bytes: UnsafeRawBufferPointer, on connection: Connection) {
        loop.assertOnLoop()
        connection.lastHeard = loop.now
        connection.received(bytes)
        drain(connection)
        watchForStalledFrame(connection)
    }

    private mutating func watchForStalledFrame(_ connection: Connection) {
        connections.watchForStalledFrame(connection, now: loop.now)
    }

    /// Handles the complete frames buffered for `connection` within its budget for this turn (loop
    /// iteration): `framesPerTurn` frames, of which `inputsPerTurn` inputs to the flows, counted
    /// over every read of the iteration (libuv may read a connection several times in one). Past
    /// it, the connection waits for its next turn (`ConnectionTable.nextFrame`): nothing is dropped
    /// or reordered, and the other connections are read and answered in the meantime.
    private mutating func drain(_ connection: Connection) {
        do {
            while var frame = try connections.nextFrame(of: connection) {
                // Moved out, not copied: a copy of the body retains everything it holds.
                if let body = frame.body.take() {
                    if Self.isFlowInput(body) { connection.inputsThisTurn += 1 }
                    handle(body, seq: frame.seq, on: connection)
                }
            }
        } catch {
            reject(connection, .init(code: error.errorCode, message: error.description), replyTo: 0)
        }
    }

    /// Gives every backlogged connection its next turn, in the order they were backlogged (one whose
    /// budget for this turn is spent waits again, in its place).
    private mutating func serviceBacklog() {
        for connection in connections.takeBacklog() {
            drain(connection)
            connections.drained(connection)
        }
    }

    mutating func ended(_ connection: Connection, error: UVError?) {
        loop.assertOnLoop()
        if connection.isMidFrame {
            logger.notice("peer disconnected mid-frame", metadata: [
                "connection": "\(connection.label)", "buffered": "\(connection.bufferedByteCount)",
            ])
        } else if let error {
            logger.debug("read ended", metadata: ["connection": "\(connection.label)", "error": "\(error)"])
        }
        connection.forceClose()
    }

    private mutating func handle(_ body: Flowd_V1_Envelope.OneOf_Body, seq: UInt64, on connection: Connection) {
        switch connection.protocolState.receive(body) {
        case .welcome(let agreement):
            var resuming: UInt64?
            if !agreement.resumeToken.isEmpty {
                var redeemed = survival.tokens.redeem(agreement.resumeToken, isHeld: delivery.isDetached)
                if case .failure(.stillConnected) = redeemed, phase == .running,
                   let old = survival.tokens.host(of: agreement.resumeToken), let previous = connections[old] {
                    // The host saw its connection drop before the daemon did: the token proves the
                    // old connection is dead. Close it (its screens are held) and resume.
                    logger.notice("resume token presented while its connection is open; closing the old one", metadata: [
                        "connection": "\(connection.label)", "old": "\(previous.label)",
                    ])
                    previous.forceClose()
                    hostLeft(previous)
                    redeemed = survival.tokens.redeem(agreement.resumeToken, isHeld: delivery.isDetached)
                }
                switch redeemed {
                case .success(let old): resuming = old
                case .failure(let refusal):
                    reject(connection, .init(code: .resumeRefused, message: "resume refused: \(refusal)"), replyTo: seq)
                    return
                }
            }
            connection.maxFrameSize = agreement.maxFrameSize
            var welcome = Flowd_V1_Welcome()
            welcome.version = agreement.version
            welcome.connectionID = connection.id
            welcome.server = configuration.server
            welcome.maxFrameSize = UInt32(agreement.maxFrameSize)
            welcome.app = appName
            if agreement.role == .screenHost, !connection.protocolState.origin.isSpawned, delivery.resumeGrace != nil, app != nil {
                welcome.resumeToken = survival.tokens.issue(for: connection.id)
                welcome.resumeGraceMs = UInt32(clamping: configuration.resumeGraceMilliseconds)
                welcome.resumed = resuming != nil
            }
            send(.welcome(welcome), to: connection, replyTo: seq)
            logger.info("handshake", metadata: [
                "connection": "\(connection.label)", "role": "\(agreement.role)", "version": "\(agreement.version)",
            ])
            debug.events.emit(.handshake, connection: connection.id, name: agreement.name,
                        text: "#\(connection.id) \(agreement.name) joined as \(agreement.role == .debug ? "debug client" : "screen host") (protocol v\(agreement.version))")
            if agreement.role == .screenHost, app != nil {
                hostJoined(connection, provides: agreement.provides, resuming: resuming)
            }
        case .handle:
            dispatch(body, seq: seq, on: connection)
        case .close:
            logger.debug("peer said goodbye", metadata: ["connection": "\(connection.label)"])
            connection.mayResume = false
            closeGracefully(connection)
        case .reject(let violation):
            reject(connection, violation, replyTo: seq)
        }
    }

    private mutating func dispatch(_ body: Flowd_V1_Envelope.OneOf_Body, seq: UInt64, on connection: Connection) {
        switch body {
        case .ping(let ping):
            var pong = Flowd_V1_Pong()
            pong.nonce = ping.nonce
            send(.pong(pong), to: connection, replyTo: seq)
        case .pong(let pong):
            survival.watchdog?.pong(from: connection.id, nonce: pong.nonce)
        case .error(let error):
            if error.screenID != 0, connection.agreement?.role == .screenHost {
                let screen = ScreenID(rawValue: error.screenID)
                tell(debug.contract.refused(error, kind: delivery.screens[screen]?.kind ?? "", owner: runtime?.owner(of: screen),
                                            from: connection.id, label: connection.label))
            } else {
                logger.notice("peer reported an error", metadata: [
                    "connection": "\(connection.label)", "code": "\(error.code)", "message": "\(error.message)",
                ])
            }
        case .ack(let ack):
            receiveAck(ack, seq: seq, from: connection)
        case .output(let output):
            receiveOutput(output, seq: seq, from: connection, injected: false)
        case .userNavigation(let navigation):
            receiveNavigation(navigation, seq: seq, from: connection, injected: false)
        case .saveState(let saved):
            receiveSaveState(saved, seq: seq, from: connection)
        case .openLink(let request):
            receiveOpenLink(request, seq: seq, from: connection)
        default:
            dispatchDebug(body, seq: seq, on: connection)
        }
    }

    // MARK: Writing

    /// Queues a frame to `connection`; it is written at the end of this loop iteration.
    mutating func send(_ body: Flowd_V1_Envelope.OneOf_Body, to connection: Connection, replyTo: UInt64 = 0) {
        guard connection.queue(body, replyTo: replyTo) else { return }
        connections.markDirty(connection)
    }

    /// Queues a screen command to its host; it is written at the end of this loop iteration.
    mutating func send(_ outgoing: ScreenDelivery.Outgoing, to connection: Connection) {
        guard connection.queue(outgoing, stateContentType: stateContentType(of: outgoing.command.screen)) else { return }
        connections.markDirty(connection)
    }

    /// The end of a loop iteration (libuv's check phase): every outbox is written, then a new turn
    /// begins and every connection has its budget again; backlogged connections take their turn in
    /// the next iteration's wake-up, before its reads.
    package mutating func endIteration() {
        flushDirtyConnections()
        connections.endTurn()
        armDeadlineTimer()
    }

    /// Writes every outbox once per iteration and drops peers that stopped reading; backlogged
    /// connections with budget left in this turn are served first.
    mutating func flushDirtyConnections() {
        loop.assertOnLoop()
        serviceBacklog()
        takeShutdownSteps()
        if !waitingLinks.isEmpty { openWaitingLinks() }
        commitJournal()
        // After every step above, which may have emitted events.
        if debug.events.hasSubscribers {
            for watcher in debug.events.takeWatchersToWrite() { connections.markDirty(watcher) }
        }
        defer {
            if connections.hasBacklog { wakeIfWorkPending() }
            service?.iterationEnded(serviceStatus, now: loop.now)
        }
        for connection in WriteScheduler.flush(connections.takeDirty(), limit: configuration.writeQueueLimit) {
            logger.warning("disconnecting a client that stopped reading", metadata: [
                "connection": "\(connection.label)", "queued": "\(connection.pipe.writeQueueSize)",
                "limit": "\(configuration.writeQueueLimit)",
            ])
            connection.forceClose()
        }
    }

    mutating func install(runtime: FlowRuntime) {
        self.runtime = runtime
    }

    mutating func recordAppOutcome(_ outcome: FlowApp.AppOutcome) {
        appOutcome = outcome
    }

    /// Close callbacks run after this iteration's flush: make sure what they
    /// queued goes out now instead of at the next unrelated wake-up.
    mutating func wakeIfWorkPending() {
        guard !connections.hasNothingToWrite || connections.hasBacklog || !debug.events.watchersToWrite.isEmpty
                || (shutdown.mayHaveStepDue && shutdown.hasStepDue(pendingDismissals: pendingDismissals)) else { return }
        loop.wake(hooks.woke)
    }

    // MARK: Closing

    mutating func reject(_ connection: Connection, _ violation: ConnectionStateMachine.Violation, replyTo: UInt64) {
        connection.mayResume = false
        logger.notice("protocol error; closing connection", metadata: [
            "connection": "\(connection.label)", "code": "\(violation.code)", "reason": "\(violation.message)",
        ])
        connection.queue(.error(Flowd_V1_Error(code: violation.code, message: violation.message, fatal: true)), replyTo: replyTo)
        connection.queue(.shutdown(.init(reason: .protocolError, message: violation.message)))
        closeGracefully(connection)
    }

    /// Flushes, half-closes and closes; a peer that does not let the write
    /// side drain is force-closed after the shutdown grace period.
    mutating func closeGracefully(_ connection: Connection) {
        connections.closeGracefully(connection, now: loop.now)
    }

    // MARK: Deadlines

    /// The earliest of every part's next deadline: the one timer of the loop is armed for it.
    private var nextDeadline: UInt64? {
        var next = connections.nextDeadline
        // Folded one by one, not from an array literal: this runs once per loop iteration.
        func fold(_ deadline: UInt64?) {
            guard let deadline else { return }
            if let current = next, current <= deadline { return }
            next = deadline
        }
        fold(delivery.nextDeadline)
        fold(survival.nextDeadline)
        fold(requests.nextDeadline)
        fold(persistence.nextDeadline)
        fold(debug.contract.nextDeadline)
        fold(processes.nextDeadline)
        fold(service?.nextDeadline)
        return next
    }

    /// Arms the loop's one timer for the earliest deadline of every part. Called once per loop
    /// iteration, at its end (`endIteration`), and from callbacks that run after it (closes, exits):
    /// not after every input, which would read every part's deadline for each frame.
    mutating func armDeadlineTimer() {
        // The watchdog ticks while commands may be waiting for acks (their clocks are running).
        if delivery.nextAckDeadline != nil { survival.watchdog?.wake(now: loop.now) }
        // Once stopped, nothing is left to time out (and the loop's timers are closed).
        let next = phase == .stopped ? nil : nextDeadline
        if armedDeadline == next { return }
        armedDeadline = next
        loop.setDeadline(next, hooks.deadlineFired)
    }

    /// The loop's timer fired: what is due expires, the next deadline is armed, and what it queued
    /// is written in this iteration. (A timer callback runs before the poll, whose timeout is
    /// computed from the timers armed then.)
    mutating func deadlineFired() {
        armedDeadline = nil
        expireDeadlines()
        armDeadlineTimer()
        wakeIfWorkPending()
    }

    /// The loop's wake-up ran: what close callbacks and backlogs left is written.
    mutating func woke() {
        flushDirtyConnections()
        armDeadlineTimer()
    }

    private mutating func expireDeadlines() {
        let now = loop.now
        loop.assertOnLoop()
        for timeout in connections.expire(now: now) {
            switch timeout {
            case .handshake(let connection):
                if case .reject(let violation)? = connection.protocolState.handshakeTimedOut(
                    afterMilliseconds: configuration.handshakeTimeoutMilliseconds) {
                    reject(connection, violation, replyTo: 0)
                }
            case .stalledFrame(let connection, let silent):
                logger.warning("peer stopped in the middle of a frame; closing", metadata: [
                    "connection": "\(connection.label)", "buffered": "\(connection.bufferedByteCount)",
                ])
                reject(connection, .init(code: .frameTimeout, message: """
                    a frame was begun (\(connection.bufferedByteCount) bytes of it arrived) and nothing more came for \
                    \(silent) ms (frame timeout \(configuration.frameTimeoutMilliseconds) ms); closing
                    """), replyTo: 0)
            case .forceClose(let connection):
                logger.debug("force-closing a connection that did not drain", metadata: ["connection": "\(connection.label)"])
                connection.forceClose()
            }
        }
        expireAckDeadlines(now: now)
        fireRequestTimers(now: now)
        for screen in debug.contract.expired(now: now) {
            guard let waiting = delivery.screens[screen], waiting.phase == .waitingForHost else { continue }
            tell(debug.contract.withoutHost(screen, kind: waiting.kind, owner: runtime?.owner(of: screen)))
        }
        tell(processes.signalOutstaying(now: now))
        service?.expire(now: now, status: serviceStatus)
        if let tick = survival.watchdog?.nextTick, tick <= now { watchdogTick(now: now) }
    }

    // MARK: Shutdown

    mutating func signalReceived(_ received: Int32) {
        loop.assertOnLoop()
        logger.info("received \(received == SIGTERM ? "SIGTERM" : "SIGINT"); shutting down")
        perform(shutdown.signal(hasFlows: hasFlows))
    }

    /// Whether flows or screens are left to unwind.
    private var hasFlows: Bool {
        (runtime?.liveFlowCount ?? 0) + (runtime?.liveScreenCount ?? 0) + (runtime?.pendingDismissals ?? 0) > 0
    }

    /// Stops accepting, unwinds every flow, sends `Shutdown` to every client, waits for them to drain
    /// (bounded) and for children to exit, closes every handle and lets the loop end.
    package mutating func beginShutdown(reason: Flowd_V1_Shutdown.Reason, message: String) {
        loop.assertOnLoop()
        perform(shutdown.begin(hasFlows: hasFlows, cause: .init(reason, message)))
    }

    /// Asks for a shutdown from inside the flows (the app ended): it begins at the end of this loop
    /// iteration, after the frames already read were answered.
    mutating func requestShutdown(reason: Flowd_V1_Shutdown.Reason, message: String) {
        shutdown.request(.init(reason, message))
    }

    /// The shutdown's steps due at the end of a loop iteration: one the app asked for begins, a
    /// completed unwinding drains.
    private mutating func takeShutdownSteps() {
        guard shutdown.mayHaveStepDue else { return }
        while case let action = shutdown.endOfIteration(hasFlows: hasFlows, pendingDismissals: pendingDismissals), action != .none {
            perform(action)
        }
    }

    /// Performs one step of the shutdown sequence.
    private mutating func perform(_ action: ShutdownSequence.Action) {
        let cause = shutdown.cause ?? .signal
        if action == .unwindFlows || action == .notifyAndDrain { service?.stopping(serviceStatus, reason: cause.message, now: loop.now) }
        switch action {
        case .none:
            return
        case .exitNow:
            logger.warning("second signal; exiting at once")
            exit(1)
        case .unwindFlows:
            freezeJournal()
            delivery.holdsScreensOfLostHosts = false
            perform(delivery.stopPool())
            hooks.stopListening()
            unwindFlows(message: cause.message)
        case .notifyAndDrain:
            freezeJournal()
            delivery.holdsScreensOfLostHosts = false
            perform(delivery.stopPool())
            hooks.stopListening()
            notifyAndDrain(cause)
        case .stopChildren:
            processes.spawned.mustAllExit(now: loop.now)
            armDeadlineTimer()
        case .finish:
            finishShutdown()
        }
    }

    /// The shutdown begins: the journal keeps the state and the place from before it.
    private mutating func freezeJournal() {
        let runtime = self.runtime
        persistence.freeze { runtime?.place?.description }
    }

    /// The unwinding phase: every flow is terminated while hosts are connected; the runtime's
    /// `.unwound(.all)` effect says when it completed.
    private mutating func unwindFlows(message: String) {
        guard let runtime else { return }
        // Unwind every flow first, so screens get their Dismiss while their hosts are still connected.
        // The event comes first so that a replay knows what caused the dismissals.
        debug.events.emit(.shutdown, text: "shutting down (\(message)): unwinding \(runtime.liveFlowCount) flows")
        logger.info("unwinding flows", metadata: ["flows": "\(runtime.liveFlowCount)", "screens": "\(runtime.liveScreenCount)"])
        // The journal is frozen: this input is not journaled (a stop is not an ending).
        _ = try? feed(.terminateAll(animated: false))
        drive()
    }

    /// The shutdown's unwinding completed (the runtime's `.unwound(.all)`). Draining waits for the
    /// dismissals sent before the shutdown began too (each ends by its ack, its deadline or its host's
    /// loss), so no host is closed before it could acknowledge.
    mutating func flowsUnwound(_ report: DismissalReport) {
        let count = { (outcome: DismissOutcome) in report.outcomes.filter { $0.outcome == outcome }.count }
        logger.info("unwound", metadata: [
            "screens": "\(report.outcomes.count)", "acknowledged": "\(count(.acknowledged))",
            "without_host": "\(count(.hostLost))", "timed_out": "\(count(.timedOut))",
        ])
        shutdown.unwound()
    }

    /// The draining phase: `Shutdown` to everyone, graceful closes.
    private mutating func notifyAndDrain(_ cause: ShutdownSequence.Cause) {
        debug.events.emit(.shutdown, text: "shutting down: \(cause.message)")
        for connection in connections.all where !connection.isClosing {
            connection.queue(.shutdown(.init(reason: cause.reason, message: cause.message)))
            closeGracefully(connection)
        }
        checkShutdownComplete()
    }

    /// Finishes the shutdown once every connection closed and every child was reaped.
    mutating func checkShutdownComplete() {
        perform(shutdown.check(connections: connections.count, children: processes.spawned.count))
    }

    private mutating func finishShutdown() {
        loop.setDeadline(nil) {}
        armedDeadline = nil
        service?.close()
        service = nil
        connections.dropDeadlines()
        requests.dropAll()
        commitJournalBeforeExit()
        persistence.journal?.drainSyncs()
        runtime = nil
        // Last: stops the loop (whose inbox runs the jobs already posted, which find the daemon
        // finished) and closes the signal handles (kept until here so that a second signal exits at once).
        hooks.finished()
    }
}
