import FlowApp
import FlowKit
import FlowWire
import Foundation
import Logging
import UVKit

#if canImport(Glibc)
import Glibc
#endif

/// Everything the daemon knows, as one value: the connections, the hosts' lives, the service
/// session, the shutdown, and the app's half (`AppCore`: the flows, their screens, the journal). `Daemon` holds it and enters it once per loop
/// event (a read, a close, a timer, a wake-up, a signal, a work result): the whole step runs inside
/// that one `inout` access, so the parts' fields are reached with static exclusivity, checked by the
/// compiler, and no dynamic check runs per field. The core turns frames into calls of the app's
/// half, and of the hosts' part, and performs the actions they return; neither sees a connection. The step never calls the `Daemon` back: what must happen outside it (reading a
/// new connection, a timer's callback, stopping the loop) goes through `DaemonHooks`, whose closures
/// touch only the daemon's own handles.
struct DaemonCore {
    /// The configuration the daemon was started with.
    var configuration: DaemonConfiguration
    let logger: Logger
    /// The app's half: flows, screens, journal, requests, links.
    var app: AppCore
    /// Every screen host's life: handshake and resume, tokens, the hang watchdog, spawned processes.
    var hosts: Hosts
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
    var shutdown = ShutdownSequence()
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
        self.throttle = LogThrottle()
        self.app = AppCore(configuration: configuration, app: app, logger: logger, loop: loop, throttle: throttle)
        self.hosts = Hosts(configuration: configuration, app: app, spawner: spawner, logger: logger, throttle: throttle)
        self.connections = ConnectionTable(configuration: configuration, logger: logger, throttle: throttle)
        self.loop = loop
    }

    /// Whether the daemon runs an app.
    private var runsApp: Bool { app.app != nil }

    // MARK: Accepting

    /// Takes a peer of the named socket: admitted by its uid and the limits, or refused. `identity` is
    /// who it is (`UVPipe.peerProcess()`); nil: only its uid and pid are known.
    package mutating func accept(_ pipe: any ConnectionPipe, uid: UInt32?, pid: Int32, identity: PeerIdentity? = nil) {
        loop.assertOnLoop()
        let connection = adopt(pipe, origin: .namedSocket(uid: uid), peerPID: pid)
        hosts.connected(connection.id, as: identity ?? PeerIdentity(uid: uid ?? .max, gid: .max, pid: pid))
        connections.admit(connection, running: phase == .running, allowedUID: configuration.allowedUID, now: loop.now)
    }

    /// `accept` failed on the listener: logged, rate-limited; the daemon keeps serving.
    package func acceptFailed(_ error: UVError) { connections.acceptFailed(error, now: loop.now) }

    /// Takes a connected pipe (accepted, or the daemon's end of a spawned
    /// screen's socket pair) into the daemon: reading starts and the
    /// handshake deadline runs.
    @discardableResult
    mutating func adopt(_ pipe: any ConnectionPipe, origin: ConnectionStateMachine.Origin, peerPID: Int32) -> Connection {
        let connection = connections.add(pipe, origin: origin, peerPID: peerPID, now: loop.now)
        hooks.register(connection)
        logger.debug("connected", metadata: ["connection": "\(connection.label)"])
        app.emit(.connected, connection: connection.id, text: "connection #\(connection.id) pid \(peerPID)")
        return connection
    }

    /// A connection's pipe closed: it leaves, and its screens are lost or held.
    mutating func connectionClosed(_ closed: Connection) {
        loop.assertOnLoop()
        connections.remove(closed.id)
        app.unsubscribe(closed.id)
        app.displayLeft(closed.id)
        logger.debug("closed", metadata: ["connection": "\(closed.label)"])
        app.emit(.disconnected, connection: closed.id, text: "connection \(closed.label) closed")
        hostLeft(closed)
        checkShutdownComplete()
        wakeIfWorkPending()
        // Close callbacks run after the iteration's end: the deadlines they changed are armed here.
        armDeadlineTimer()
    }

    // MARK: Reading

    mutating func received(_ bytes: UnsafeRawBufferPointer, on connection: Connection) {
        loop.assertOnLoop()
        connections.received(bytes, on: connection, now: loop.now)
        hosts.heard(connection.id, now: loop.now)
        drain(connection)
        connections.afterRead(connection, now: loop.now)
    }

    /// Handles the complete frames buffered for `connection` within its budget for this turn (loop
    /// iteration): `framesPerTurn` frames, of which `inputsPerTurn` inputs to the flows, counted
    /// over every read of the iteration (libuv may read a connection several times in one). Past
    /// it, the connection waits for its next turn (`ConnectionTable.nextFrame`): nothing is dropped
    /// or reordered, and the other connections are read and answered in the meantime.
    private mutating func drain(_ connection: Connection) {
        // The frames' outputs are written here, one after the other (`HotFrame.Body.output`).
        var output = HostOutput()
        do {
            reading: while true {
                let frame = try connections.nextFrame(of: connection, output: &output)
                // Outputs and acks of a screen host go straight to the app, without the body enum
                // (`HotFrame`); the state machine's answer for them there is always `.handle`.
                switch frame.body {
                case .noFrame:
                    break reading
                case .output where connection.protocolState.isScreenHost:
                    connections.countInput(on: connection)
                    dispatchOutput(output, seq: frame.seq, on: connection)
                case .ack(let screenID, let serial) where connection.protocolState.isScreenHost:
                    dispatchAck(screen: screenID, serial: serial, seq: frame.seq, on: connection)
                default:
                    let body = frame.envelopeBody(output: output)
                    if ConnectionStateMachine.isFlowInput(body) { connections.countInput(on: connection) }
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
        connections.ended(connection, error: error)
    }

    private mutating func handle(_ body: Flowd_V1_Envelope.OneOf_Body, seq: UInt64, on connection: Connection) {
        switch connection.protocolState.receive(body) {
        case .welcome(let agreement):
            if agreement.role == .screenHost, let violation = connections.hostRefusal(of: connection) {
                connections.refuseOverLimit(connection, violation, limit: "screen hosts", replyTo: seq, now: loop.now)
                return
            }
            let join = hosts.join(connection.id, label: connection.label, pid: connection.peerPID, role: agreement.role,
                                  provides: agreement.provides, resumeToken: agreement.resumeToken,
                                  spawned: connection.protocolState.origin.isSpawned)
            if case .refused(let code, let message) = join {
                reject(connection, .init(code: code, message: message), replyTo: seq)
                return
            }
            connections.agreed(agreement, on: connection)
            send(.welcome(hosts.welcome(join, to: connection.id, agreement: agreement, app: app.appName)), to: connection, replyTo: seq)
            logger.info("handshake", metadata: [
                "connection": "\(connection.label)", "role": "\(agreement.role)", "version": "\(agreement.version)",
                "peer": "\(hosts.identity(of: connection.id).summary.bounded(1024))",
            ])
            app.emit(.handshake, connection: connection.id, name: agreement.name,
                        text: "#\(connection.id) \(agreement.name) joined as \(agreement.role == .screenHost ? "screen host" : agreement.role == .debug ? "debug client" : "display") (protocol v\(agreement.version)); \(hosts.identity(of: connection.id).summary)")
            if agreement.role == .display { app.displayJoined(connection.id) }
            performHostActions()
        case .handle:
            dispatch(body, seq: seq, on: connection)
        case .close:
            logger.debug("peer said goodbye", metadata: ["connection": "\(connection.label)"])
            connections.leavesForGood(connection)
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
            hosts.pong(connection.id, nonce: pong.nonce)
        case .error(let error):
            if error.screenID != 0, connection.agreement?.role == .screenHost {
                app.hostRefused(error, host: connection.id, label: connection.label)
            } else {
                throttle.log(logger, .notice, "peer-error", "peer reported an error", [
                    "connection": "\(connection.label)", "code": "\(error.code)", "message": "\(error.message.bounded(1024))",
                ], now: loop.now)
            }
        case .ack(let ack):
            dispatchAck(screen: ack.screenID, serial: ack.serial, seq: seq, on: connection)
            return
        case .output(let output):
            dispatchOutput(HostOutput(output), seq: seq, on: connection)
            return
        case .userNavigation(let navigation):
            app.receiveNavigation(navigation, seq: seq, from: connection.id, anyScreen: connection.agreement?.role == .display)
        case .saveState(let saved):
            app.receiveSaveState(saved, seq: seq, from: connection.id)
            if hosts.remembersSavers {
                hosts.savedState(saved.screenID, by: connection.id, hostsIt: app.host(of: saved.screenID) == connection.id, live: app.liveScreens)
            }
        case .provideDisplays(let message):
            if let problem = app.receiveProvideDisplays(message, from: connection.id) {
                return reject(connection, .init(code: .badPayload, message: problem), replyTo: seq)
            }
        case .openLink(let request):
            if let refusal = hosts.linkRefusal(from: connection.id, label: connection.label, now: loop.now) {
                return send(.error(refusal), to: connection, replyTo: seq)
            }
            app.receiveOpenLink(request, seq: seq, from: connection.id)
        default:
            dispatchDebug(body, seq: seq, on: connection)
        }
        performAppActions()
    }

    private mutating func dispatchOutput(_ output: HostOutput, seq: UInt64, on connection: Connection) {
        app.receiveOutput(output, seq: seq, from: connection.id)
        performAppActions()
    }

    private mutating func dispatchAck(screen: UInt64, serial: UInt64, seq: UInt64, on connection: Connection) {
        app.receiveAck(screen: screen, serial: serial, seq: seq, from: connection.id)
        performAppActions()
    }

    // MARK: Writing

    /// Queues a frame to `connection` for this iteration's write (`ConnectionTable.send`).
    mutating func send(_ body: Flowd_V1_Envelope.OneOf_Body, to connection: Connection, replyTo: UInt64 = 0) {
        connections.send(body, to: connection, replyTo: replyTo, now: loop.now)
    }

    private mutating func sendPong(_ nonce: UInt64, to connection: Connection, replyTo seq: UInt64) {
        var pong = Flowd_V1_Pong()
        pong.nonce = nonce
        send(.pong(pong), to: connection, replyTo: seq)
    }

    /// Queues a screen command to its host; one over the host's maximum frame size fails loudly.
    mutating func send(_ outgoing: ScreenDelivery.Outgoing, stateContentType: String, to connection: Connection) {
        // Every Place carries a new secret, which the displays learn with the next scene.
        let token = if case .place(let place) = outgoing.command { app.displayToken(for: place.screen) } else { "" }
        if !connections.send(outgoing, stateContentType: stateContentType, displayToken: token, to: connection) { commandRefused(outgoing, on: connection) }
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
        // The scene before the Pongs: a display's Ping is a barrier for what its navigation changed.
        if app.hasScenesToHand { handScenesToDisplays() }
        for pong in app.takeDurablePongs() {
            if let connection = connections[pong.connection], !connection.isClosing { sendPong(pong.nonce, to: connection, replyTo: pong.seq) }
        }
        // After every step above, which may have emitted events.
        handEventsToWatchers()
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
            connections.closeNow(connection.id)
        }
    }

    /// The iteration's events go to their watchers (`ConnectionTable.handEvents`).
    mutating func handEventsToWatchers() {
        guard app.hasEventsToHand else { return }
        let app = self.app
        connections.handEvents(now: loop.now) { app.handEvents(pendingBytes: $0, queue: $1) }
    }

    /// The scene goes to the displays that do not have it yet (`Displays.takeScenes`).
    mutating func handScenesToDisplays() {
        for (display, scene) in app.takeScenes() {
            guard let connection = connections[display], !connection.isClosing else { continue }
            send(.displayScene(scene), to: connection)
            // Written now, ahead of the iteration's other writes: a display hears of a change before
            // the screens it shows do, so a claim finds its secret known (no Ping barrier) and a
            // dismissed screen's window going away is never taken for a crash (docs/shell.md).
            connection.flush()
        }
    }

    /// Close callbacks run after this iteration's flush: make sure what they
    /// queued goes out now instead of at the next unrelated wake-up.
    mutating func wakeIfWorkPending() {
        guard !connections.hasNothingToWrite || connections.hasBacklog || app.hasStagedEvents
                || (shutdown.mayHaveStepDue && shutdown.hasStepDue(pendingDismissals: app.pendingDismissals)) else { return }
        loop.wake(hooks.woke)
    }

    // MARK: Closing

    mutating func reject(_ connection: Connection, _ violation: ConnectionStateMachine.Violation, replyTo: UInt64, logged: Bool = true) {
        // A watcher gets the events staged for it before its Error.
        if app.hasEventsToHand { handEventsToWatchers() }
        connections.reject(connection, violation, replyTo: replyTo, logged: logged, now: loop.now)
    }

    /// Flushes, half-closes and closes; a peer that does not let the write
    /// side drain is force-closed after the shutdown grace period.
    mutating func closeGracefully(_ connection: Connection) {
        // A watcher gets the events staged for it before its connection stops taking frames.
        if app.hasEventsToHand { handEventsToWatchers() }
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
            DeadlineFold.fold(hosts.nextDeadline, into: &next)
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
        if app.awaitsAcks { hosts.acksAwaited(now: loop.now) }
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
        if app.answerWaitingHistoryQuestions(isConnected: { [connections] in connections[$0] != nil }) { loop.wake(hooks.woke) }
        performAppActions()
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
                connections.closeNow(connection.id)
            }
        }
        app.expire(now: now)
        performAppActions()
        service?.expire(now: loop.monotonicNow, status: serviceStatus)
        hosts.expire(now: now, awaitingAcks: app.hostsAwaitingAcks) { [connections] in connections[$0].map { !$0.isClosing } ?? false }
        performHostActions()
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
            hosts.mustAllExit(now: loop.now)
            armDeadlineTimer()
        case .finish:
            finishShutdown()
        }
    }

    /// The shutdown begins: the app takes no new work and the daemon no new connections.
    private mutating func stopTakingWork() {
        app.stopTakingWork()
        hosts.stopTakingWork()
        performAppActions()
        hooks.stopListening()
    }

    /// The draining phase: `Shutdown` to everyone, graceful closes.
    private mutating func notifyAndDrain(_ cause: ShutdownSequence.Cause) {
        app.emit(.shutdown, text: "shutting down: \(cause.message)")
        // The watchers get every event before their `Shutdown`.
        handEventsToWatchers()
        for connection in connections.all where !connection.isClosing {
            connections.closeTelling(connection, .init(reason: cause.reason, message: cause.message), now: loop.now)
        }
        checkShutdownComplete()
    }

    /// Finishes the shutdown once every connection closed and every child was reaped.
    mutating func checkShutdownComplete() {
        perform(shutdown.check(connections: connections.count, children: hosts.processCount))
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
