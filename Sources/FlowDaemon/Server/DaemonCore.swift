import FlowApp
import FlowKit
import FlowWire
import Foundation
import Logging
import UVKit

#if canImport(Glibc)
import Glibc
#endif

/// Everything the daemon knows, as one value: the connections, survival (resume tokens and the
/// watchdog), the screen processes, the service session, the shutdown, and the app's half
/// (`AppCore`: the flows, their screens, the journal). `Daemon` holds it and enters it once per loop
/// event (a read, a close, a timer, a wake-up, a signal, a work result): the whole step runs inside
/// that one `inout` access, so the parts' fields are reached with static exclusivity, checked by the
/// compiler, and no dynamic check runs per field. The core turns frames into calls of the app's
/// half and performs the actions it returns (`perform(_: AppCore.Action)`); the app's half never
/// sees a connection. The step never calls the `Daemon` back: what must happen outside it (reading a
/// new connection, a timer's callback, stopping the loop) goes through `DaemonHooks`, whose closures
/// touch only the daemon's own handles.
struct DaemonCore {
    /// The configuration the daemon was started with.
    var configuration: DaemonConfiguration
    let logger: Logger
    /// The app's half: flows, screens, journal, requests, links.
    var app: AppCore
    /// Resume tokens, the hang watchdog, and the counts of what kept screens alive.
    var survival: Survival
    /// The screen processes spawned, and the spawner.
    var processes: ScreenProcesses
    /// Who each peer is, what the app's policy lets it do, and the audit log.
    var peers: PeerRegistry
    /// The live event stream (the app's half emits into it too).
    let events: EventBus
    /// Bounds the log lines a peer can cause: refusals, frames over a limit, injections.
    let throttle: LogThrottle
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
    /// Reused between steps by `performAppActions()`.
    var appActions: [AppCore.Action] = []
    /// What the core asks of the daemon around it (set once, by `Daemon`).
    var hooks = DaemonHooks() {
        didSet { app.workFinished = hooks.workFinished }
    }

    init(configuration: DaemonConfiguration, app: FlowApp.App?, logger: Logger, loop: any DaemonLoop, spawner: any ScreenSpawner) {
        self.configuration = configuration
        self.logger = logger
        self.events = EventBus()
        self.throttle = LogThrottle()
        self.app = AppCore(configuration: configuration, app: app, logger: logger, loop: loop, events: events, throttle: throttle)
        self.survival = Survival(hangTimeout: configuration.hangTimeoutMilliseconds, resumeGrace: configuration.resumeGraceMilliseconds)
        self.processes = ScreenProcesses(app: app, spawner: spawner, exitGrace: configuration.spawnExitGraceMilliseconds)
        self.peers = PeerRegistry(policy: app?.policy ?? .sameUser)
        self.connections = ConnectionTable(
            limits: .init(maxFrameSize: configuration.maxFrameSize, framesPerTurn: configuration.framesPerTurn,
                          inputsPerTurn: configuration.inputsPerTurn, frameTimeout: configuration.frameTimeoutMilliseconds,
                          writeQueueLimit: configuration.writeQueueLimit, maxConnections: configuration.maxConnections,
                          debugReserve: min(configuration.debugConnectionReserve, configuration.maxConnections / 2),
                          perProcess: configuration.effectiveMaxConnectionsPerProcess,
                          partialFrameBudget: configuration.partialFrameBudget),
            handshakeTimeout: configuration.handshakeTimeoutMilliseconds, closeGrace: configuration.shutdownGraceMilliseconds)
        self.loop = loop
    }

    /// Whether the daemon runs an app.
    private var runsApp: Bool { app.app != nil }

    // MARK: Accepting

    /// Takes a peer of the named socket: admitted by its uid, or refused. `identity` is who it is
    /// (`UVPipe.peerProcess()`); nil: only its uid and pid are known.
    package mutating func accept(_ pipe: any ConnectionPipe, uid: UInt32?, pid: Int32, identity: PeerIdentity? = nil) {
        loop.assertOnLoop()
        let connection = adopt(pipe, origin: .namedSocket(uid: uid), peerPID: pid)
        peers.connected(connection.id, as: identity ?? PeerIdentity(uid: uid ?? .max, gid: .max, pid: pid))
        if phase != .running {
            connection.queue(.error(Flowd_V1_Error(code: .shuttingDown, message: "flowd is shutting down; try again later", fatal: true)))
            closeGracefully(connection)
            return
        }
        if let violation = ConnectionStateMachine.admit(connection.protocolState.origin, allowedUID: configuration.allowedUID) {
            throttle.log(logger, .warning, "refused.uid", "refused connection", ["connection": "\(connection.label)", "reason": "\(violation.message)"],
                         now: loop.now)
            reject(connection, violation, replyTo: 0, logged: false)
            return
        }
        if let violation = connections.admissionRefusal(of: connection) {
            refuseOverLimit(connection, violation, limit: "connections", replyTo: 0)
        }
    }

    /// Closes `connection` with a fatal `LIMIT_EXCEEDED`: an `Error` frame, `Shutdown`, then close; one
    /// log line per kind of refusal a second at most (a flood is a few lines).
    /// `limit` names the limit, for the log's rate (one fixed key each, whoever the peer is).
    mutating func refuseOverLimit(_ connection: Connection, _ violation: ConnectionStateMachine.Violation, limit: String, replyTo: UInt64) {
        throttle.log(logger, .warning, "limit.\(limit)", "refused a connection over a limit", [
            "limit": "\(limit)",
            "connection": "\(connection.label)", "connections": "\(connections.count)", "reason": "\(violation.message)",
        ], now: loop.now)
        reject(connection, violation, replyTo: replyTo, logged: false)
    }

    /// `accept` failed on the listener (EMFILE, ENFILE, ...): logged, rate-limited; the daemon keeps
    /// serving. (At EMFILE libuv closes the waiting peers itself, with a descriptor it keeps in reserve,
    /// and says nothing; it reports the failure only without that reserve.)
    package mutating func acceptFailed(_ error: UVError) {
        throttle.log(logger, .error, "accept", "cannot accept a connection; flowd goes on serving", [
            "error": "\(error)", "connections": "\(connections.count)", "limit": "\(configuration.maxConnections)",
            "advice": "raise the open-file limit (ulimit -n), or lower --max-connections below it",
        ], now: loop.now)
    }

    /// Takes a connected pipe (accepted, or the daemon's end of a spawned
    /// screen's socket pair) into the daemon: reading starts and the
    /// handshake deadline runs.
    @discardableResult
    mutating func adopt(_ pipe: any ConnectionPipe, origin: ConnectionStateMachine.Origin, peerPID: Int32) -> Connection {
        let connection = connections.add(pipe, origin: origin, peerPID: peerPID, now: loop.now)
        hooks.register(connection)
        logger.debug("connected", metadata: ["connection": "\(connection.label)"])
        events.emit(.connected, connection: connection.id, text: "connection #\(connection.id) pid \(peerPID)")
        return connection
    }

    /// A connection's pipe closed: it leaves, and its screens are lost or held.
    mutating func connectionClosed(_ closed: Connection) {
        loop.assertOnLoop()
        connections.remove(closed.id)
        peers.closed(closed.id)
        events.unsubscribe(closed.id)
        logger.debug("closed", metadata: ["connection": "\(closed.label)"])
        events.emit(.disconnected, connection: closed.id, text: "connection \(closed.label) closed")
        if runsApp { hostLeft(closed) }
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
        // Unfinished frames count against the budget of all connections (two loads when none is held).
        if connection.partialBytesCounted != 0 || connection.bufferedByteCount != 0, !connection.isClosing,
           let violation = connections.countPartialFrame(of: connection) {
            refuseOverLimit(connection, violation, limit: "unfinished frames", replyTo: 0)
        }
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
            reading: while true {
                let frame = try connections.nextFrame(of: connection)
                // Outputs and acks of a screen host go straight to the app, without the body enum
                // (`HotFrame`); the state machine's answer for them there is always `.handle`.
                switch frame.body {
                case .noFrame:
                    break reading
                case .output(let output) where connection.protocolState.isScreenHost:
                    connection.inputsThisTurn += 1
                    dispatchOutput(output, seq: frame.seq, on: connection)
                case .ack(let ack) where connection.protocolState.isScreenHost:
                    dispatchAck(ack, seq: frame.seq, on: connection)
                default:
                    let body = frame.envelopeBody
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
            // What it held shrank without a read: counted again (less, so never over the budget).
            if connection.partialBytesCounted != 0 { _ = connections.countPartialFrame(of: connection) }
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
            if agreement.role == .screenHost, let violation = connections.hostRefusal(of: connection) {
                refuseOverLimit(connection, violation, limit: "screen hosts", replyTo: seq)
                return
            }
            if let violation = peerRefusal(of: agreement, on: connection) { return reject(connection, violation, replyTo: seq) }
            var resuming: UInt64?
            if !agreement.resumeToken.isEmpty {
                var redeemed = survival.tokens.redeem(agreement.resumeToken, isHeld: app.delivery.isDetached)
                if case .failure(.stillConnected) = redeemed, phase == .running,
                   let old = survival.tokens.host(of: agreement.resumeToken), let previous = connections[old] {
                    // The host saw its connection drop before the daemon did: the token proves the
                    // old connection is dead. Close it (its screens are held) and resume.
                    logger.notice("resume token presented while its connection is open; closing the old one", metadata: [
                        "connection": "\(connection.label)", "old": "\(previous.label)",
                    ])
                    // Told first, as every connection the daemon closes on purpose (protocol.md §11).
                    send(.shutdown(.init(reason: .unspecified, message: """
                        replaced: this host's resume token was presented by connection #\(connection.id); this connection is closed \
                        and its screens go to the new one
                        """)), to: previous)
                    previous.flush()
                    previous.forceClose()
                    hostLeft(previous)
                    redeemed = survival.tokens.redeem(agreement.resumeToken, isHeld: app.delivery.isDetached)
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
            welcome.app = app.appName
            if agreement.role == .screenHost, !connection.protocolState.origin.isSpawned, app.delivery.resumeGrace != nil, runsApp {
                welcome.resumeToken = survival.tokens.issue(for: connection.id)
                welcome.resumeGraceMs = UInt32(clamping: configuration.resumeGraceMilliseconds)
                welcome.resumed = resuming != nil
            }
            send(.welcome(welcome), to: connection, replyTo: seq)
            logger.info("handshake", metadata: [
                "connection": "\(connection.label)", "role": "\(agreement.role)", "version": "\(agreement.version)",
                "peer": "\(peers.identity(of: connection.id).summary.bounded(1024))",
            ])
            events.emit(.handshake, connection: connection.id, name: agreement.name,
                        text: "#\(connection.id) \(agreement.name) joined as \(agreement.role == .debug ? "debug client" : "screen host") (protocol v\(agreement.version)); \(peers.identity(of: connection.id).summary)")
            if agreement.role == .screenHost, runsApp {
                app.hostJoined(connection.id, label: connection.label, pid: connection.peerPID, provides: agreement.provides,
                               spawned: processes.spawned[connection: connection.id] != nil, resuming: resuming)
                performAppActions()
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
            do {
                if try app.holdsPong(ping.nonce, seq: seq, on: connection.id) { return }
            } catch {
                send(.error(Flowd_V1_Error(code: .limitExceeded, message: """
                    \(Persistence.maxHeldPongs) pongs already wait for the journal, whose writes fail; \
                    this Ping is not answered: ping again once it writes
                    """)), to: connection, replyTo: seq)
                return
            }
            sendPong(ping.nonce, to: connection, replyTo: seq)
        case .pong(let pong):
            survival.watchdog?.pong(from: connection.id, nonce: pong.nonce)
        case .error(let error):
            if error.screenID != 0, connection.agreement?.role == .screenHost {
                app.hostRefused(error, host: connection.id, label: connection.label)
            } else {
                throttle.log(logger, .notice, "peer-error", "peer reported an error", [
                    "connection": "\(connection.label)", "code": "\(error.code)", "message": "\(error.message.bounded(1024))",
                ], now: loop.now)
            }
        case .ack(let ack):
            dispatchAck(ack, seq: seq, on: connection)
            return
        case .output(let output):
            dispatchOutput(output, seq: seq, on: connection)
            return
        case .userNavigation(let navigation):
            app.receiveNavigation(navigation, seq: seq, from: connection.id)
        case .saveState(let saved):
            app.receiveSaveState(saved, seq: seq, from: connection.id)
            savedStateReceived(saved, on: connection)
        case .openLink(let request):
            if refusesLink(seq: seq, on: connection) { return }
            app.receiveOpenLink(request, seq: seq, from: connection.id)
        default:
            dispatchDebug(body, seq: seq, on: connection)
        }
        performAppActions()
    }

    private mutating func dispatchOutput(_ output: Flowd_V1_Output, seq: UInt64, on connection: Connection) {
        app.receiveOutput(output, seq: seq, from: connection.id)
        performAppActions()
    }

    private mutating func dispatchAck(_ ack: Flowd_V1_Ack, seq: UInt64, on connection: Connection) {
        app.receiveAck(ack, seq: seq, from: connection.id)
        performAppActions()
    }

    // MARK: Writing

    /// Queues a frame to `connection`; it is written at the end of this loop iteration. A frame over
    /// the connection's maximum frame size is answered instead (`queueInstead`): never dropped unsaid.
    mutating func send(_ body: Flowd_V1_Envelope.OneOf_Body, to connection: Connection, replyTo: UInt64 = 0) {
        if !connection.queue(body, replyTo: replyTo) {
            guard !connection.isClosing, queueInstead(of: body, to: connection, replyTo: replyTo) else { return }
        }
        connections.markDirty(connection)
    }

    private mutating func sendPong(_ nonce: UInt64, to connection: Connection, replyTo seq: UInt64) {
        var pong = Flowd_V1_Pong()
        pong.nonce = nonce
        send(.pong(pong), to: connection, replyTo: seq)
    }

    /// Queues a screen command to its host; it is written at the end of this loop iteration. One over
    /// the host's maximum frame size fails loudly (`commandRefused`).
    mutating func send(_ outgoing: ScreenDelivery.Outgoing, stateContentType: String, to connection: Connection) {
        if !connection.queue(outgoing, stateContentType: stateContentType) {
            guard !connection.isClosing else { return }
            commandRefused(outgoing, on: connection)
            return
        }
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
        // The links that waited open, then the iteration's inputs are committed (what a host is
        // told is journaled first).
        if app.hasWaitingLinks {
            app.openWaitingLinks { [connections] id in connections[id].map { !$0.isClosing } ?? false }
            // Before the commit: a spawn that fails feeds the flows, and what they do is journaled
            // before any host is told.
            performAppActions()
        }
        app.commitJournal()
        performAppActions()
        for pong in app.takeDurablePongs() {
            if let connection = connections[pong.connection], !connection.isClosing { sendPong(pong.nonce, to: connection, replyTo: pong.seq) }
        }
        // After every step above, which may have emitted events.
        if events.hasSubscribers {
            if events.hasLaggingWatchers { tellLaggingWatchers() }
            for watcher in events.takeWatchersToWrite() { connections.markDirty(watcher) }
        }
        defer {
            if connections.hasBacklog { wakeIfWorkPending() }
            service?.iterationEnded(serviceStatus, now: loop.monotonicNow)
        }
        var batch = connections.takeDirty()
        let stalled = WriteScheduler.flush(batch, limit: configuration.writeQueueLimit)
        connections.giveBack(&batch)
        for connection in stalled {
            logger.warning("disconnecting a client that stopped reading", metadata: [
                "connection": "\(connection.label)", "queued": "\(connection.pipe.writeQueueSize)",
                "limit": "\(configuration.writeQueueLimit)",
            ])
            connection.forceClose()
        }
    }

    /// Close callbacks run after this iteration's flush: make sure what they
    /// queued goes out now instead of at the next unrelated wake-up.
    mutating func wakeIfWorkPending() {
        guard !connections.hasNothingToWrite || connections.hasBacklog || !events.watchersToWrite.isEmpty
                || (shutdown.mayHaveStepDue && shutdown.hasStepDue(pendingDismissals: app.pendingDismissals)) else { return }
        loop.wake(hooks.woke)
    }

    // MARK: Closing

    mutating func reject(_ connection: Connection, _ violation: ConnectionStateMachine.Violation, replyTo: UInt64, logged: Bool = true) {
        connection.mayResume = false
        if logged { logRejection(connection, violation) }
        send(.error(Flowd_V1_Error(code: violation.code, message: violation.message, fatal: true)), to: connection, replyTo: replyTo)
        send(.shutdown(.init(reason: .protocolError, message: violation.message.bounded(1024))), to: connection)
        closeGracefully(connection)
    }

    private func logRejection(_ connection: Connection, _ violation: ConnectionStateMachine.Violation) {
        throttle.log(logger, .notice, "reject.\(violation.code)", "protocol error; closing connection", [
            "connection": "\(connection.label)", "code": "\(violation.code)", "reason": "\(violation.message.bounded(1024))",
        ], now: loop.now)
    }

    /// Flushes, half-closes and closes; a peer that does not let the write
    /// side drain is force-closed after the shutdown grace period.
    mutating func closeGracefully(_ connection: Connection) {
        connections.closeGracefully(connection, now: loop.now)
    }

    // MARK: Deadlines

    /// The earliest of every part's next deadline: the one timer of the loop is armed for it.
    /// `mutating` so that every part is read in place: a getter on `self` copied the optional parts
    /// out (`service`, the journal) to read one field (~0.5 k instructions per loop iteration in
    /// `memcpy`, callgrind of `flowd-relay`).
    private var nextDeadline: UInt64? {
        mutating get {
            var next = connections.nextDeadline
            DeadlineFold.fold(app.nextDeadline, into: &next)
            DeadlineFold.fold(survival.nextDeadline, into: &next)
            DeadlineFold.fold(processes.nextDeadline, into: &next)
            // The service manager's watchdog is on the monotonic clock, pauses included.
            DeadlineFold.fold(service?.nextDeadline.map { $0 > loop.unattended ? $0 - loop.unattended : 0 }, into: &next)
            return next
        }
    }

    /// Arms the loop's one timer for the earliest deadline of every part. Called once per loop
    /// iteration, at its end (`endIteration`), and from callbacks that run after it (closes, exits):
    /// not after every input, which would read every part's deadline for each frame.
    mutating func armDeadlineTimer() {
        // The watchdog ticks while commands may be waiting for acks (their clocks are running).
        if app.delivery.nextAckDeadline != nil { survival.watchdog?.wake(now: loop.now) }
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
        answerWaitingHistoryQuestions()
        flushDirtyConnections()
        armDeadlineTimer()
    }

    private mutating func expireDeadlines() {
        let now = loop.now
        loop.assertOnLoop()
        for timeout in connections.expire(now: now) {
            switch timeout {
            case .reject(let connection, let violation, let notice):
                if let notice { tell(notice) }
                reject(connection, violation, replyTo: 0)
            case .forceClose(let connection):
                logger.debug("force-closing a connection that did not drain", metadata: ["connection": "\(connection.label)"])
                connection.forceClose()
            }
        }
        app.expire(now: now)
        performAppActions()
        tell(processes.signalOutstaying(now: now))
        service?.expire(now: loop.monotonicNow, status: serviceStatus)
        if let tick = survival.watchdog?.nextTick, tick <= now { watchdogTick(now: now) }
    }

    // MARK: Shutdown

    mutating func signalReceived(_ received: Int32) {
        loop.assertOnLoop()
        let name = [SIGTERM: "SIGTERM", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGHUP: "SIGHUP"][received] ?? "signal \(received)"
        logger.info("received \(name); shutting down")
        perform(shutdown.signal(hasFlows: app.hasFlows))
    }

    /// Stops accepting, unwinds every flow, sends `Shutdown` to every client, waits for them to drain
    /// (bounded) and for children to exit, closes every handle and lets the loop end.
    package mutating func beginShutdown(reason: Flowd_V1_Shutdown.Reason, message: String) {
        loop.assertOnLoop()
        perform(shutdown.begin(hasFlows: app.hasFlows, cause: .init(reason, message)))
    }

    /// Asks for a shutdown from inside the flows (the app ended): it begins at the end of this loop
    /// iteration, after the frames already read were answered.
    mutating func requestShutdown(reason: Flowd_V1_Shutdown.Reason, message: String) {
        shutdown.request(.init(reason, message))
    }

    /// The shutdown's unwinding completed: draining may begin.
    mutating func flowsUnwound() {
        shutdown.unwound()
    }

    /// The shutdown's steps due at the end of a loop iteration: one the app asked for begins, a
    /// completed unwinding drains.
    private mutating func takeShutdownSteps() {
        guard shutdown.mayHaveStepDue else { return }
        while case let action = shutdown.endOfIteration(hasFlows: app.hasFlows, pendingDismissals: app.pendingDismissals), action != .none {
            perform(action)
        }
    }

    /// Performs one step of the shutdown sequence.
    private mutating func perform(_ action: ShutdownSequence.Action) {
        let cause = shutdown.cause ?? .signal
        if action == .unwindFlows || action == .notifyAndDrain { service?.stopping(serviceStatus, reason: cause.message, now: loop.monotonicNow) }
        switch action {
        case .none:
            return
        case .exitNow:
            logger.warning("second signal; exiting at once")
            exit(1)
        case .unwindFlows:
            stopTakingWork()
            app.unwindAll(message: cause.message)
            performAppActions()
        case .notifyAndDrain:
            stopTakingWork()
            notifyAndDrain(cause)
        case .stopChildren:
            processes.spawned.mustAllExit(now: loop.now)
            armDeadlineTimer()
        case .finish:
            finishShutdown()
        }
    }

    /// The shutdown begins: the app takes no new work and the daemon no new connections.
    private mutating func stopTakingWork() {
        app.stopTakingWork()
        performAppActions()
        hooks.stopListening()
    }

    /// The draining phase: `Shutdown` to everyone, graceful closes.
    private mutating func notifyAndDrain(_ cause: ShutdownSequence.Cause) {
        events.emit(.shutdown, text: "shutting down: \(cause.message)")
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
        app.finish()
        // Last: stops the loop (whose inbox runs the jobs already posted, which find the daemon
        // finished) and closes the signal handles (kept until here so that a second signal exits at once).
        hooks.finished()
    }
}
