import DequeModule
import FlowWire
import Logging
import UVKit

#if canImport(Glibc)
import Glibc
#endif

/// The flowd server: one libuv loop on one thread that accepts connections,
/// runs the handshake, answers pings and debug requests, and shuts down
/// gracefully on SIGTERM/SIGINT. Every method runs on the loop thread.
public final class Daemon {
    /// The configuration the daemon was started with.
    public let configuration: DaemonConfiguration
    /// The name of the app this daemon runs, reported in `Welcome`.
    public let appName: String
    let logger: Logger

    let loop: UVLoop
    private var listener: UnixSocketListener?
    private var flushCheck: UVCheck?
    private var deadlineTimer: UVTimer?
    private var signals: [UVSignal] = []

    private(set) var connections: [UInt64: Connection] = [:]
    private var lastConnectionID: UInt64 = 0
    /// Connections with frames in their outbox, flushed once per loop iteration.
    private var dirty: [Connection] = []
    /// Handshake deadlines in connection order (one timeout for all, so FIFO).
    private var handshakeDeadlines: Deque<(id: UInt64, at: UInt64)> = []
    /// Force-close deadlines of connections closing gracefully.
    private var closeDeadlines: Deque<(id: UInt64, at: UInt64)> = []
    private var armedDeadline: UInt64?

    private enum Phase { case running, draining, stopped }
    private var phase: Phase = .running
    private var signalsReceived = 0

    /// Creates a daemon; nothing happens until `run()`.
    public init(configuration: DaemonConfiguration, appName: String = "none", logger: Logger) throws(DaemonError) {
        self.configuration = configuration
        self.appName = appName
        self.logger = logger
        do {
            self.loop = try UVLoop()
        } catch {
            throw .loop(error, doing: "creating the event loop")
        }
    }

    /// Listens and serves until a graceful shutdown completes. Returns when
    /// every handle is closed and the loop is closed; throws if it cannot listen.
    public func run() throws(DaemonError) {
        UVSignal.ignoreBrokenPipe()
        unblockShutdownSignals()
        do {
            listener = try UnixSocketListener.listen(loop: loop, path: configuration.socketPath) { [unowned self] pipe in
                accept(pipe)
            }
        } catch {
            throw .listen(error)
        }
        if listener?.reclaimedStaleSocket == true {
            logger.notice("reclaimed stale socket file", metadata: ["path": "\(configuration.socketPath)"])
        }
        try installSignalHandlers()
        let check = UVCheck(loop: loop)
        check.start { [unowned self] in flushDirtyConnections() }
        flushCheck = check
        deadlineTimer = UVTimer(loop: loop)
        logger.info("listening on \(configuration.socketPath)", metadata: ["app": "\(appName)", "pid": "\(getpid())"])

        loop.run()
        do {
            try loop.close()
        } catch {
            throw .loop(error, doing: "closing the loop (a handle was left open)")
        }
        logger.info("stopped")
    }

    // MARK: Accepting

    private func accept(_ pipe: UVPipe) {
        loop.assertOnLoop()
        let credentials = pipe.peerCredentials()
        lastConnectionID += 1
        let connection = Connection(
            id: lastConnectionID, pipe: pipe, origin: .namedSocket(uid: credentials?.uid),
            peerPID: credentials?.pid ?? 0, maxFrameSize: configuration.maxFrameSize)
        register(connection)
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
        logger.debug("connected", metadata: ["connection": "\(connection.label)"])
        handshakeDeadlines.append((connection.id, loop.now + configuration.handshakeTimeoutMilliseconds))
        armDeadlineTimer()
    }

    private func register(_ connection: Connection) {
        connections[connection.id] = connection
        connection.onClosed = { [unowned self] closed in
            connections[closed.id] = nil
            logger.debug("closed", metadata: ["connection": "\(closed.label)"])
            if phase == .draining && connections.isEmpty { finishShutdown() }
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

    // MARK: Reading

    private func received(_ bytes: UnsafeRawBufferPointer, on connection: Connection) {
        connection.decoder.append(bytes)
        do {
            while !connection.isClosing, let envelope = try connection.decoder.nextEnvelope() {
                connection.receivedSeq = envelope.seq
                guard let body = envelope.body else { continue }
                handle(body, seq: envelope.seq, on: connection)
            }
        } catch {
            reject(connection, .init(code: error.errorCode, message: error.description), replyTo: 0)
        }
    }

    private func ended(_ connection: Connection, error: UVError?) {
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
            connection.decoder.maxFrameSize = agreement.maxFrameSize
            var welcome = Flowd_V1_Welcome()
            welcome.version = agreement.version
            welcome.connectionID = connection.id
            welcome.server = "flowd \(FlowdVersion.string)"
            welcome.maxFrameSize = UInt32(agreement.maxFrameSize)
            welcome.app = appName
            send(.welcome(welcome), to: connection, replyTo: seq)
            logger.info("handshake", metadata: [
                "connection": "\(connection.label)", "role": "\(agreement.role)", "version": "\(agreement.version)",
            ])
        case .handle(let body):
            dispatch(body, seq: seq, on: connection)
        case .close:
            logger.debug("peer said goodbye", metadata: ["connection": "\(connection.label)"])
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
        case .pong:
            break
        case .error(let error):
            logger.notice("peer reported an error", metadata: [
                "connection": "\(connection.label)", "code": "\(error.code)", "message": "\(error.message)",
            ])
        case .getStats:
            send(.stats(stats()), to: connection, replyTo: seq)
        case .getTree:
            send(.tree(tree()), to: connection, replyTo: seq)
        default:
            send(.error(Flowd_V1_Error(code: .unexpectedMessage, message: "\(body.name) is not served by this daemon yet", fatal: false)), to: connection, replyTo: seq)
        }
    }

    // MARK: Writing

    /// Queues a frame to `connection`; it is written at the end of this loop iteration.
    func send(_ body: Flowd_V1_Envelope.OneOf_Body, to connection: Connection, replyTo: UInt64 = 0) {
        guard connection.queue(body, replyTo: replyTo) else { return }
        markDirty(connection)
    }

    private func markDirty(_ connection: Connection) {
        guard !connection.isDirty else { return }
        connection.isDirty = true
        dirty.append(connection)
    }

    /// Writes every outbox once per iteration and drops peers that stopped reading.
    private func flushDirtyConnections() {
        guard !dirty.isEmpty else { return }
        let batch = dirty
        dirty.removeAll(keepingCapacity: true)
        for connection in batch {
            connection.isDirty = false
            connection.flush()
            if connection.pipe.writeQueueSize > configuration.writeQueueLimit {
                logger.warning("disconnecting a client that stopped reading", metadata: [
                    "connection": "\(connection.label)", "queued": "\(connection.pipe.writeQueueSize)",
                    "limit": "\(configuration.writeQueueLimit)",
                ])
                connection.forceClose()
            }
        }
    }

    // MARK: Closing

    private func reject(_ connection: Connection, _ violation: ConnectionStateMachine.Violation, replyTo: UInt64) {
        logger.notice("protocol error; closing connection", metadata: [
            "connection": "\(connection.label)", "code": "\(violation.code)", "reason": "\(violation.message)",
        ])
        connection.queue(.error(Flowd_V1_Error(code: violation.code, message: violation.message, fatal: true)), replyTo: replyTo)
        connection.queue(.shutdown(.init(reason: .protocolError, message: violation.message)))
        closeGracefully(connection)
    }

    /// Flushes, half-closes and closes; a peer that does not let the write
    /// side drain is force-closed after the shutdown grace period.
    private func closeGracefully(_ connection: Connection) {
        guard !connection.isClosing else { return }
        connection.close(graceful: true)
        closeDeadlines.append((connection.id, loop.now + configuration.shutdownGraceMilliseconds))
        armDeadlineTimer()
    }

    // MARK: Deadlines

    private func armDeadlineTimer() {
        guard let timer = deadlineTimer else { return }
        let next = [handshakeDeadlines.first?.at, closeDeadlines.first?.at].compactMap { $0 }.min()
        guard let next else {
            timer.stop()
            armedDeadline = nil
            return
        }
        if armedDeadline == next { return }
        armedDeadline = next
        let now = loop.now
        timer.start(after: next > now ? next - now : 0) { [unowned self] in
            armedDeadline = nil
            expireDeadlines()
        }
    }

    private func expireDeadlines() {
        let now = loop.now
        while let first = handshakeDeadlines.first, first.at <= now {
            handshakeDeadlines.removeFirst()
            guard let connection = connections[first.id], !connection.isClosing else { continue }
            if let action = connection.protocolState.handshakeTimedOut(afterMilliseconds: configuration.handshakeTimeoutMilliseconds),
               case .reject(let violation) = action {
                reject(connection, violation, replyTo: 0)
            }
        }
        while let first = closeDeadlines.first, first.at <= now {
            closeDeadlines.removeFirst()
            if let connection = connections[first.id] {
                logger.debug("force-closing a connection that did not drain", metadata: ["connection": "\(connection.label)"])
                connection.forceClose()
            }
        }
        armDeadlineTimer()
    }

    // MARK: Shutdown

    private func installSignalHandlers() throws(DaemonError) {
        for signum in [SIGTERM, SIGINT] {
            do {
                let signal = try UVSignal(loop: loop)
                signals.append(signal)
                try signal.start(signum) { [unowned self] received in
                    signalReceived(received)
                }
            } catch {
                throw .loop(error, doing: "installing the handler for signal \(signum)")
            }
        }
    }

    /// A parent may start us with SIGTERM/SIGINT blocked (the mask is
    /// inherited across exec); a daemon that must stop on them unblocks them.
    private func unblockShutdownSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    private func signalReceived(_ received: Int32) {
        signalsReceived += 1
        if signalsReceived > 1 {
            logger.warning("second signal; exiting at once")
            exit(1)
        }
        logger.info("received \(received == SIGTERM ? "SIGTERM" : "SIGINT"); shutting down")
        beginShutdown(reason: .daemonExiting, message: "flowd received a signal and is exiting")
    }

    /// Stops accepting, sends `Shutdown` to every client, waits for them to
    /// drain (bounded), closes every handle and lets the loop end.
    func beginShutdown(reason: Flowd_V1_Shutdown.Reason, message: String) {
        guard phase == .running else { return }
        phase = .draining
        listener?.close()
        listener = nil
        for connection in connections.values where !connection.isClosing {
            connection.queue(.shutdown(.init(reason: reason, message: message)))
            closeGracefully(connection)
        }
        if connections.isEmpty { finishShutdown() }
    }

    private func finishShutdown() {
        guard phase == .draining else { return }
        phase = .stopped
        flushCheck?.close()
        flushCheck = nil
        deadlineTimer?.close()
        deadlineTimer = nil
        // Signal handles stay until here so that a second signal exits at once.
        for signal in signals { signal.close() }
        signals.removeAll()
        handshakeDeadlines.removeAll()
        closeDeadlines.removeAll()
    }
}
