import FlowApp
import FlowKit
import FlowWire
import Foundation
import Logging
import UVKit

#if canImport(Glibc)
import Glibc
#endif

/// The flowd server: one loop on one thread that accepts connections, runs the handshake, answers
/// pings and debug requests, drives the runtime and the screen delivery, and shuts down gracefully on
/// SIGTERM/SIGINT. Every method runs on the loop thread. Its I/O goes through three seams — the
/// loop (`DaemonLoop`), each connection's pipe (`ConnectionPipe`) and the spawner (`ScreenSpawner`)
/// — so the same daemon runs on libuv (`run()`) or embedded in a test (FlowDaemonTesting).
public final class Daemon {
    /// The configuration the daemon was started with (its socket path is the passed socket's, when one was passed).
    public internal(set) var configuration: DaemonConfiguration
    /// The app this daemon runs, if any.
    public let app: App?
    /// Every kind the app names (`App.kinds`), computed once: hosts offering others are told.
    let appKinds: Set<String>
    /// The name of the app, reported in `Welcome`.
    public var appName: String { app?.name ?? "none" }
    let logger: Logger
    /// The flows and the navigation model (nil when no app runs).
    private(set) var runtime: FlowRuntime?

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
    /// Which host shows which screen, serials, held commands and ack deadlines.
    package var delivery: ScreenDelivery
    /// Resume tokens, the hang watchdog, spawned processes, pools decided, and their counts.
    var survival: Survival
    /// The event stream, the terminations waiting for their unwinding, and the contract watch.
    var debug = DebugSurface()
    /// The journal, the applied input keys and the restore: what keeps the app across restarts.
    var persistence = Persistence()
    /// `OpenLink` requests waiting for the dismissals in flight (`Daemon+Links.swift`).
    var waitingLinks = WaitingLinks()
    /// The flows' timers and work the daemon started (`Daemon+Requests.swift`).
    var requests = DaemonRequests()
    /// Reused between inputs by `drive()`, so applying effects allocates nothing in the steady state.
    var effectBuffer: [RuntimeEffect] = []
    /// Reused between commands by `drive()`.
    var actionBuffer: [ScreenDelivery.Action] = []
    /// How the app ended, once it did.
    public private(set) var appOutcome: AppOutcome?

    /// The loop: clock, deadline timer, wake-ups.
    let loop: any DaemonLoop
    /// The libuv loop when the daemon serves a socket (nil when embedded).
    private let uvLoop: UVDaemonLoop?
    /// Starts spawned screens.
    let spawner: any ScreenSpawner
    private var listener: UnixSocketListener?
    private var signals: [UVSignal] = []
    /// What the daemon tells its service manager (nil: not started by one that listens, or embedded).
    var service: ServiceSession?

    /// Every connection, its turns, writes and deadlines.
    private(set) var connections: ConnectionTable
    private var armedDeadline: UInt64?

    /// Where the daemon is in its life.
    public typealias Phase = DaemonPhase
    /// The graceful shutdown's phases.
    private var shutdown = ShutdownSequence()
    /// Where the daemon is in its life.
    public var phase: Phase { shutdown.phase }

    /// Creates a daemon on a new libuv loop; nothing happens until `run()`.
    public convenience init(configuration: DaemonConfiguration, app: App? = nil, logger: Logger) throws(DaemonError) {
        let uv: UVLoop
        do {
            uv = try UVLoop()
        } catch {
            throw .loop(error, doing: "creating the event loop")
        }
        let loop = UVDaemonLoop(uv)
        self.init(configuration: configuration, app: app, logger: logger, loop: loop, uvLoop: loop, spawner: UVScreenSpawner(loop: uv))
    }

    /// A daemon on another loop and spawner (the embedded daemon); `startApp()` starts its app.
    package convenience init(configuration: DaemonConfiguration, app: App?, logger: Logger, loop: any DaemonLoop, spawner: any ScreenSpawner) {
        self.init(configuration: configuration, app: app, logger: logger, loop: loop, uvLoop: nil, spawner: spawner)
    }

    private init(configuration: DaemonConfiguration, app: App?, logger: Logger, loop: any DaemonLoop, uvLoop: UVDaemonLoop?,
                 spawner: any ScreenSpawner) {
        self.configuration = configuration
        self.app = app
        self.appKinds = Set(app?.kinds ?? [])
        self.logger = logger
        self.delivery = ScreenDelivery(ackTimeout: configuration.ackTimeoutMilliseconds, resumeGrace: configuration.resumeGraceMilliseconds)
        self.survival = Survival(hangTimeout: configuration.hangTimeoutMilliseconds, exitGrace: configuration.spawnExitGraceMilliseconds)
        self.connections = ConnectionTable(
            limits: .init(maxFrameSize: configuration.maxFrameSize, framesPerTurn: configuration.framesPerTurn,
                          inputsPerTurn: configuration.inputsPerTurn, frameTimeout: configuration.frameTimeoutMilliseconds,
                          writeQueueLimit: configuration.writeQueueLimit),
            handshakeTimeout: configuration.handshakeTimeoutMilliseconds, closeGrace: configuration.shutdownGraceMilliseconds)
        self.loop = loop
        self.uvLoop = uvLoop
        self.spawner = spawner
    }

    /// Listens and serves until a graceful shutdown completes. Returns when
    /// every handle is closed and the loop is closed; throws if it cannot listen.
    /// `service` is what a service manager handed over (`ServiceEnvironment.take`): its socket is served
    /// instead of binding one, and it is told when the daemon is ready and stopping (docs/service.md).
    public func run(service: ServiceEnvironment = ServiceEnvironment()) throws(DaemonError) {
        guard let uvLoop else { preconditionFailure("Daemon.run() needs the libuv loop; an embedded daemon is driven by its test") }
        UVSignal.ignoreBrokenPipe()
        // A journal write past the file size limit (ulimit -f) must fail with EFBIG, to be handled like a
        // full disk (the inputs wait in memory), not kill the daemon with SIGXFSZ.
        signal(SIGXFSZ, SIG_IGN)
        unblockSignals()
        do {
            listener = try makeListener(on: uvLoop.uv, service: service) { [unowned self] pipe in
                accept(pipe)
            }
        } catch {
            throw .listen(error)
        }
        if listener?.reclaimedStaleSocket == true {
            logger.notice("reclaimed stale socket file", metadata: ["path": "\(configuration.socketPath)"])
        }
        do {
            try openState()
        } catch {
            // No socket is left behind for clients to find: this daemon will not serve.
            listener?.close()
            listener = nil
            throw error
        }
        try installSignalHandlers(on: uvLoop.uv)
        uvLoop.start { [unowned self] in endIteration() }
        logger.info("listening on \(configuration.socketPath)", metadata: ["app": "\(appName)", "pid": "\(getpid())"])
        startService(service)
        startApp()
        becameReady()
        // The first iteration's poll must see the deadlines the start set.
        armDeadlineTimer()

        _ = uvLoop.uv.run()
        do {
            try uvLoop.uv.close()
        } catch {
            throw .loop(error, doing: "closing the loop (a handle was left open)")
        }
        logger.info("stopped")
    }

    // MARK: Accepting

    private func accept(_ pipe: UVPipe) {
        let credentials = pipe.peerCredentials()
        accept(pipe, uid: credentials?.uid, pid: credentials?.pid ?? 0)
    }

    /// Takes a peer of the named socket: admitted by its uid, or refused.
    package func accept(_ pipe: any ConnectionPipe, uid: UInt32?, pid: Int32) {
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
    func adopt(_ pipe: any ConnectionPipe, origin: ConnectionStateMachine.Origin, peerPID: Int32) -> Connection {
        let connection = connections.add(pipe, origin: origin, peerPID: peerPID, now: loop.now)
        register(connection)
        logger.debug("connected", metadata: ["connection": "\(connection.label)"])
        emitEvent(.connected, connection: connection.id, text: "connection #\(connection.id) pid \(peerPID)")
        return connection
    }

    private func register(_ connection: Connection) {
        connection.onClosed = { [unowned self] closed in
            loop.assertOnLoop()
            connections.remove(closed.id)
            debug.events.unsubscribe(closed.id)
            logger.debug("closed", metadata: ["connection": "\(closed.label)"])
            emitEvent(.disconnected, connection: closed.id, text: "connection \(closed.label) closed")
            if app != nil { hostLeft(closed) }
            checkShutdownComplete()
            wakeIfWorkPending()
            // Close callbacks run after the iteration's end: the deadlines they changed are armed here.
            armDeadlineTimer()
        }
        do {
            try connection.pipe.startReading(
                onData: { [unowned self, unowned connection] bytes in received(bytes, on: connection) },
                onEnd: { [unowned self, unowned connection] error in ended(connection, error: error) })
        } catch {
            // The peer is already gone (reset before we read a byte).
            logger.debug("connection ended before reading", metadata: ["connection": "\(connection.label)", "error": "\(error)"])
            connection.forceClose()
        }
    }

    /// Takes a connected pipe of a spawned screen (its token checked at `Hello`); returns the connection id.
    package func adoptSpawned(_ pipe: any ConnectionPipe, token: String, peerPID: Int32) -> UInt64 {
        adopt(pipe, origin: .spawned(token: token), peerPID: peerPID).id
    }

    /// Closes the connection of a spawned screen whose process could not be started.
    package func dropSpawned(_ id: UInt64) {
        connections[id]?.forceClose()
    }

    /// The socket path spawned screens are told.
    package var socketPath: String { configuration.socketPath }

    /// Spawned processes not reaped yet.
    package var childCount: Int { survival.spawned.count }

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

    private func received(_ bytes: UnsafeRawBufferPointer, on connection: Connection) {
        loop.assertOnLoop()
        connection.lastHeard = loop.now
        connection.decoder.append(bytes)
        drain(connection)
        watchForStalledFrame(connection)
    }

    private func watchForStalledFrame(_ connection: Connection) {
        connections.watchForStalledFrame(connection, now: loop.now)
    }

    /// Handles the complete frames buffered for `connection` within its budget for this turn (loop
    /// iteration): `framesPerTurn` frames, of which `inputsPerTurn` inputs to the flows, counted
    /// over every read of the iteration (libuv may read a connection several times in one). Past
    /// it, the connection waits for its next turn (`ConnectionTable.nextFrame`): nothing is dropped
    /// or reordered, and the other connections are read and answered in the meantime.
    private func drain(_ connection: Connection) {
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
    private func serviceBacklog() {
        for connection in connections.takeBacklog() {
            drain(connection)
            connections.drained(connection)
        }
    }

    private func ended(_ connection: Connection, error: UVError?) {
        loop.assertOnLoop()
        if connection.decoder.isMidFrame {
            logger.notice("peer disconnected mid-frame", metadata: [
                "connection": "\(connection.label)", "buffered": "\(connection.decoder.bufferedByteCount)",
            ])
        } else if let error {
            logger.debug("read ended", metadata: ["connection": "\(connection.label)", "error": "\(error)"])
        }
        connection.forceClose()
    }

    private func handle(_ body: Flowd_V1_Envelope.OneOf_Body, seq: UInt64, on connection: Connection) {
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
            connection.decoder.maxFrameSize = agreement.maxFrameSize
            var welcome = Flowd_V1_Welcome()
            welcome.version = agreement.version
            welcome.connectionID = connection.id
            welcome.server = "flowd \(FlowdVersion.string)"
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
            emitEvent(.handshake, connection: connection.id, name: agreement.name,
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

    private func dispatch(_ body: Flowd_V1_Envelope.OneOf_Body, seq: UInt64, on connection: Connection) {
        switch body {
        case .ping(let ping):
            var pong = Flowd_V1_Pong()
            pong.nonce = ping.nonce
            send(.pong(pong), to: connection, replyTo: seq)
        case .pong(let pong):
            survival.watchdog?.pong(from: connection.id, nonce: pong.nonce)
        case .error(let error):
            if error.screenID != 0, connection.agreement?.role == .screenHost {
                reportRefusal(error, from: connection)
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
        case .openLink(let request):
            receiveOpenLink(request, seq: seq, from: connection)
        default:
            dispatchDebug(body, seq: seq, on: connection)
        }
    }

    // MARK: Writing

    /// Queues a frame to `connection`; it is written at the end of this loop iteration.
    func send(_ body: Flowd_V1_Envelope.OneOf_Body, to connection: Connection, replyTo: UInt64 = 0) {
        guard connection.queue(body, replyTo: replyTo) else { return }
        connections.markDirty(connection)
    }

    /// Sends screen `screen`'s `Update` (its `serial` and `state`), written from these fields.
    func sendUpdate(_ screen: ScreenID, serial: UInt64, state: Data, to connection: Connection) {
        guard connection.queueUpdate(screenID: screen.rawValue, serial: serial, contentType: stateContentType(of: screen), state: state) else { return }
        connections.markDirty(connection)
    }

    /// The end of a loop iteration (libuv's check phase): every outbox is written, then a new turn
    /// begins and every connection has its budget again; backlogged connections take their turn in
    /// the next iteration's wake-up, before its reads.
    package func endIteration() {
        flushDirtyConnections()
        connections.endTurn()
        armDeadlineTimer()
    }

    /// Writes every outbox once per iteration and drops peers that stopped reading; backlogged
    /// connections with budget left in this turn are served first.
    package func flushDirtyConnections() {
        loop.assertOnLoop()
        serviceBacklog()
        takeShutdownSteps()
        if !waitingLinks.isEmpty { openWaitingLinks() }
        commitJournal()
        defer {
            if connections.hasBacklog { wakeIfWorkPending() }
            if service != nil { serviceIterationEnded() }
        }
        for connection in WriteScheduler.flush(connections.takeDirty(), limit: configuration.writeQueueLimit) {
            logger.warning("disconnecting a client that stopped reading", metadata: [
                "connection": "\(connection.label)", "queued": "\(connection.pipe.writeQueueSize)",
                "limit": "\(configuration.writeQueueLimit)",
            ])
            connection.forceClose()
        }
    }

    func install(runtime: FlowRuntime) {
        self.runtime = runtime
    }

    func recordAppOutcome(_ outcome: AppOutcome) {
        appOutcome = outcome
    }

    /// Close callbacks run after this iteration's flush: make sure what they
    /// queued goes out now instead of at the next unrelated wake-up.
    func wakeIfWorkPending() {
        guard !connections.hasNothingToWrite || connections.hasBacklog
                || (shutdown.mayHaveStepDue && shutdown.hasStepDue(pendingDismissals: pendingDismissals)) else { return }
        loop.wake { [unowned self] in
            flushDirtyConnections()
            armDeadlineTimer()
        }
    }

    // MARK: Closing

    func reject(_ connection: Connection, _ violation: ConnectionStateMachine.Violation, replyTo: UInt64) {
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
    func closeGracefully(_ connection: Connection) {
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
        fold(survival.watchdog?.nextTick)
        fold(requests.timers.next)
        fold(persistence.nextDeadline)
        fold(debug.contract.hostWaits.next)
        fold(survival.spawned.nextDeadline)
        fold(service?.nextDeadline)
        return next
    }

    /// Arms the loop's one timer for the earliest deadline of every part. Called once per loop
    /// iteration, at its end (`endIteration`), and from callbacks that run after it (closes, exits):
    /// not after every input, which would read every part's deadline for each frame.
    func armDeadlineTimer() {
        // The watchdog ticks while commands may be waiting for acks (their clocks are running).
        if delivery.nextAckDeadline != nil { survival.watchdog?.wake(now: loop.now) }
        // Once stopped, nothing is left to time out (and the loop's timers are closed).
        let next = phase == .stopped ? nil : nextDeadline
        if armedDeadline == next { return }
        armedDeadline = next
        loop.setDeadline(next) { [unowned self] in
            armedDeadline = nil
            expireDeadlines()
            // A timer callback runs before the poll, whose timeout is computed from the timers armed
            // then: arm the next deadline now, and write what it queued in this iteration.
            armDeadlineTimer()
            wakeIfWorkPending()
        }
    }

    private func expireDeadlines() {
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
                    "connection": "\(connection.label)", "buffered": "\(connection.decoder.bufferedByteCount)",
                ])
                reject(connection, .init(code: .frameTimeout, message: """
                    a frame was begun (\(connection.decoder.bufferedByteCount) bytes of it arrived) and nothing more came for \
                    \(silent) ms (frame timeout \(configuration.frameTimeoutMilliseconds) ms); closing
                    """), replyTo: 0)
            case .forceClose(let connection):
                logger.debug("force-closing a connection that did not drain", metadata: ["connection": "\(connection.label)"])
                connection.forceClose()
            }
        }
        expireAckDeadlines(now: now)
        fireRequestTimers(now: now)
        reportScreensWithoutHost(now: now)
        signalOutstayingProcesses(now: now)
        expireService(now: now)
        if let tick = survival.watchdog?.nextTick, tick <= now { watchdogTick(now: now) }
    }

    // MARK: Shutdown

    private func installSignalHandlers(on uv: UVLoop) throws(DaemonError) {
        for signum in [SIGTERM, SIGINT] {
            do {
                let signal = try UVSignal(loop: uv)
                signals.append(signal)
                try signal.start(signum) { [unowned self] received in
                    signalReceived(received)
                }
            } catch {
                throw .loop(error, doing: "installing the handler for signal \(signum)")
            }
        }
    }

    /// A parent may start us with signals blocked (the mask is inherited
    /// across exec; test runners and thread pools block them). The daemon
    /// needs SIGTERM/SIGINT to stop and SIGCHLD for libuv to reap children,
    /// so it starts from an empty mask.
    private func unblockSignals() {
        var empty = sigset_t()
        sigemptyset(&empty)
        pthread_sigmask(SIG_SETMASK, &empty, nil)
    }

    private func signalReceived(_ received: Int32) {
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
    package func beginShutdown(reason: Flowd_V1_Shutdown.Reason, message: String) {
        loop.assertOnLoop()
        perform(shutdown.begin(hasFlows: hasFlows, cause: .init(reason, message)))
    }

    /// Asks for a shutdown from inside the flows (the app ended): it begins at the end of this loop
    /// iteration, after the frames already read were answered.
    func requestShutdown(reason: Flowd_V1_Shutdown.Reason, message: String) {
        shutdown.request(.init(reason, message))
    }

    /// The shutdown's steps due at the end of a loop iteration: one the app asked for begins, a
    /// completed unwinding drains.
    private func takeShutdownSteps() {
        guard shutdown.mayHaveStepDue else { return }
        while case let action = shutdown.endOfIteration(hasFlows: hasFlows, pendingDismissals: pendingDismissals), action != .none {
            perform(action)
        }
    }

    /// Performs one step of the shutdown sequence.
    private func perform(_ action: ShutdownSequence.Action) {
        let cause = shutdown.cause ?? .signal
        if action == .unwindFlows || action == .notifyAndDrain { serviceShutdownStep(message: cause.message) }
        switch action {
        case .none:
            return
        case .exitNow:
            logger.warning("second signal; exiting at once")
            exit(1)
        case .unwindFlows:
            persistence.freeze()
            delivery.holdsScreensOfLostHosts = false
            perform(delivery.stopPool())
            listener?.close()
            listener = nil
            unwindFlows(message: cause.message)
        case .notifyAndDrain:
            persistence.freeze()
            delivery.holdsScreensOfLostHosts = false
            perform(delivery.stopPool())
            listener?.close()
            listener = nil
            notifyAndDrain(cause)
        case .stopChildren:
            survival.spawned.mustAllExit(now: loop.now)
            armDeadlineTimer()
        case .finish:
            finishShutdown()
        }
    }

    /// The unwinding phase: every flow is terminated while hosts are connected; the runtime's
    /// `.unwound(.all)` effect says when it completed.
    private func unwindFlows(message: String) {
        guard let runtime else { return }
        // Unwind every flow first, so screens get their Dismiss while their hosts are still connected.
        // The event comes first so that a replay knows what caused the dismissals.
        emitEvent(.shutdown, text: "shutting down (\(message)): unwinding \(runtime.liveFlowCount) flows")
        logger.info("unwinding flows", metadata: ["flows": "\(runtime.liveFlowCount)", "screens": "\(runtime.liveScreenCount)"])
        // The journal is frozen: this input is not journaled (a stop is not an ending).
        _ = try? feed(.terminateAll(animated: false))
        drive()
    }

    /// The shutdown's unwinding completed (the runtime's `.unwound(.all)`). Draining waits for the
    /// dismissals sent before the shutdown began too (each ends by its ack, its deadline or its host's
    /// loss), so no host is closed before it could acknowledge.
    func flowsUnwound(_ report: DismissalReport) {
        let count = { (outcome: DismissOutcome) in report.outcomes.filter { $0.outcome == outcome }.count }
        logger.info("unwound", metadata: [
            "screens": "\(report.outcomes.count)", "acknowledged": "\(count(.acknowledged))",
            "without_host": "\(count(.hostLost))", "timed_out": "\(count(.timedOut))",
        ])
        shutdown.unwound()
    }

    /// The draining phase: `Shutdown` to everyone, graceful closes.
    private func notifyAndDrain(_ cause: ShutdownSequence.Cause) {
        emitEvent(.shutdown, text: "shutting down: \(cause.message)")
        for connection in connections.all where !connection.isClosing {
            connection.queue(.shutdown(.init(reason: cause.reason, message: cause.message)))
            closeGracefully(connection)
        }
        checkShutdownComplete()
    }

    /// A spawned process was reaped.
    func childExited() {
        loop.assertOnLoop()
        checkShutdownComplete()
    }

    /// Finishes the shutdown once every connection closed and every child was reaped.
    private func checkShutdownComplete() {
        perform(shutdown.check(connections: connections.count, children: survival.spawned.count))
    }

    private func finishShutdown() {
        uvLoop?.stop()
        loop.setDeadline(nil) {}
        armedDeadline = nil
        // Signal handles stay until here so that a second signal exits at once.
        for signal in signals { signal.close() }
        signals.removeAll()
        stopService()
        connections.dropDeadlines()
        requests.dropAll()
        commitJournalBeforeExit()
        persistence.journal?.drainSyncs()
        runtime = nil
    }
}
