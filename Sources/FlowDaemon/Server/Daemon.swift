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
///
/// What it knows is one value, `core` (`DaemonCore`); this class owns the handles around it (the
/// listener, the signals, the libuv loop) and turns each loop event into one step of the core.
public final class Daemon {
    /// The state and the steps; entered once per loop event.
    private var core: DaemonCore
    /// The libuv loop when the daemon serves a socket (nil when embedded).
    private let uvLoop: UVDaemonLoop?
    private var listener: UnixSocketListener?
    private var signals: [UVSignal] = []
    /// The daemon's logger, for what happens outside a step of the core (a hook must not read the core).
    private let logger: Logger
    /// Set once the shutdown finished: nothing enters the core any more (the loop's inbox runs the
    /// jobs already posted as it closes, from inside the core's last step).
    private var isFinished = false
    /// What the callbacks that may run after the daemon is gone hold (`DaemonAnchor`).
    private var anchor: DaemonAnchor?

    /// Creates a daemon on a new libuv loop; nothing happens until `run()`.
    public convenience init(configuration: DaemonConfiguration, app: FlowApp.App? = nil, logger: Logger) throws(DaemonError) {
        let uv: UVLoop
        do {
            uv = try UVLoop()
        } catch {
            throw .loop(error, doing: "creating the event loop")
        }
        let loop = UVDaemonLoop(uv)
        self.init(configuration: configuration, app: app, logger: logger, loop: loop, uvLoop: loop, spawner: UVScreenSpawner(loop: uv, logger: logger))
    }

    /// A daemon on another loop and spawner (the embedded daemon); `startApp()` starts its app.
    package convenience init(configuration: DaemonConfiguration, app: FlowApp.App?, logger: Logger, loop: any DaemonLoop, spawner: any ScreenSpawner) {
        self.init(configuration: configuration, app: app, logger: logger, loop: loop, uvLoop: nil, spawner: spawner)
    }

    private init(configuration: DaemonConfiguration, app: FlowApp.App?, logger: Logger, loop: any DaemonLoop, uvLoop: UVDaemonLoop?,
                 spawner: any ScreenSpawner) {
        core = DaemonCore(configuration: configuration, app: app, logger: logger, loop: loop, spawner: spawner)
        self.uvLoop = uvLoop
        self.logger = logger
        let anchor = DaemonAnchor(self)
        self.anchor = anchor
        let daemon = LoopBound(anchor)
        core.hooks = DaemonHooks(
            register: { [unowned self] connection in register(connection) },
            deadlineFired: { [unowned self] in core.deadlineFired() },
            woke: { [unowned self] in core.woke() },
            watchExit: { child, kind in
                child.onExit = { child in anchor.daemon?.core.childExited(child, kind: kind) }
            },
            workFinished: { result, inbox in inbox.enqueue { daemon.value?.daemon?.workFinished(result) } },
            stopListening: { [unowned self] in
                listener?.close()
                listener = nil
            },
            finished: { [unowned self] in
                isFinished = true
                uvLoop?.stop()
                for signal in signals { signal.close() }
                signals.removeAll()
            })
    }

    deinit { anchor?.daemonEnded() }

    // MARK: What it is

    /// The configuration the daemon was started with (its socket path is the passed socket's, when one was passed).
    public var configuration: DaemonConfiguration { core.configuration }
    /// The app this daemon runs, if any.
    public var app: FlowApp.App? { core.app.app }
    /// The name of the app, reported in `Welcome`.
    public var appName: String { core.app.appName }
    /// Where the daemon is in its life.
    public typealias Phase = DaemonPhase
    /// Where the daemon is in its life.
    public var phase: Phase { core.phase }
    /// How the app ended, once it did.
    public var appOutcome: FlowApp.AppOutcome? { core.app.outcome }

    // MARK: Running

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
        // What flowd's parent left open without close-on-exec would reach every spawned screen.
        let inherited = InheritedDescriptors.markCloseOnExec()
        if inherited > 0 { logger.debug("marked inherited descriptors close-on-exec", metadata: ["count": "\(inherited)"]) }
        do {
            listener = try makeListener(on: uvLoop.uv, service: service) { [unowned self] pipe in
                let peer = pipe.peerProcess()
                accept(pipe, uid: peer?.uid, pid: peer?.pid ?? 0, identity: peer.map(PeerIdentity.init))
            }
        } catch {
            throw .listen(error)
        }
        // EMFILE, ENFILE, ...: logged (rate-limited), and the listener goes on.
        listener?.onAcceptError = { [unowned self] error in core.acceptFailed(error) }
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
        uvLoop.start(flush: { [unowned self] in core.endIteration() }, paused: { [logger, uvLoop] pause in
            // A second or more is a stopped or frozen process worth a line; less is a starved one.
            logger.log(level: pause >= 1000 ? .notice : .debug,
                       "flowd's loop could not run for \(pause) ms (stopped, frozen or starved); no peer is judged for that time",
                       metadata: ["pause_ms": "\(pause)", "unattended_ms": "\(uvLoop.unattended)"])
        })
        logger.info("listening on \(configuration.socketPath)", metadata: ["app": "\(appName)", "pid": "\(getpid())"])
        core.startService(service)
        core.startApp()
        core.becameReady()
        // The first iteration's poll must see the deadlines the start set.
        core.armDeadlineTimer()

        _ = uvLoop.uv.run()
        do {
            try uvLoop.uv.close()
        } catch {
            throw .loop(error, doing: "closing the loop (a handle was left open)")
        }
        logger.info("stopped")
    }

    /// The listener: on the socket the service manager passed (which then becomes the daemon's socket
    /// path, so spawned screens are told the right one), else bound at the configured path.
    private func makeListener(on uv: UVLoop, service: ServiceEnvironment,
                              onConnection: @escaping (UVPipe) -> Void) throws(ListenerError) -> UnixSocketListener {
        guard let passed = service.passedSocket else {
            return try UnixSocketListener.listen(loop: uv, path: configuration.socketPath, onConnection: onConnection)
        }
        let listener = try UnixSocketListener.listen(loop: uv, passed: passed, onConnection: onConnection)
        logger.info("serving the socket the service manager passed", metadata: [
            "path": "\(passed.path.isEmpty ? "(unnamed)" : passed.path)", "descriptor": "\(passed.descriptor)",
            "name": "\(service.listenName ?? "-")",
        ])
        if !passed.path.isEmpty, passed.path != configuration.socketPath {
            logger.notice("the passed socket is not the default socket path; clients looking there will not find flowd", metadata: [
                "passed": "\(passed.path)", "default": "\(configuration.socketPath)",
            ])
        }
        if !passed.path.isEmpty { core.configuration.socketPath = passed.path }
        return listener
    }

    /// Opens the journal of `configuration.statePath` (`DaemonCore.openState`).
    package func openState() throws(DaemonError) { try core.openState() }

    /// Creates the runtime and starts the app's root flow, restoring from the journal first.
    package func startApp() { core.startApp() }

    /// Takes a peer of the named socket: admitted by its uid, or refused; `identity` is who it is
    /// (nil: only its uid and pid are known).
    package func accept(_ pipe: any ConnectionPipe, uid: UInt32?, pid: Int32, identity: PeerIdentity? = nil) {
        core.accept(pipe, uid: uid, pid: pid, identity: identity)
    }

    /// Reading starts: each read, the end of the stream and the close enter the core.
    private func register(_ connection: Connection) {
        connection.onClosed = { [unowned self] closed in core.connectionClosed(closed) }
        do {
            try connection.pipe.startReading(
                onData: { [unowned self, unowned connection] bytes in core.received(bytes, on: connection) },
                onEnd: { [unowned self, unowned connection] error in core.ended(connection, error: error) })
        } catch {
            // The peer is already gone (reset before we read a byte).
            logger.debug("connection ended before reading", metadata: ["connection": "\(connection.label)", "error": "\(error)"])
            connection.forceClose()
        }
    }

    /// A flow's work result, posted to the loop's inbox: fed to the flows unless the daemon finished.
    private func workFinished(_ result: ExternalWorkResult) {
        guard !isFinished else { return }
        core.workFinished(result)
    }

    /// The end of a loop iteration (libuv's check phase): every outbox is written, then a new turn
    /// begins and every connection has its budget again.
    package func endIteration() { core.endIteration() }

    /// Stops accepting, unwinds every flow, sends `Shutdown` to every client, waits for them to drain
    /// (bounded) and for children to exit, closes every handle and lets the loop end.
    package func beginShutdown(reason: Flowd_V1_Shutdown.Reason, message: String) {
        core.beginShutdown(reason: reason, message: message)
    }

    /// Starts talking to a service manager through `sink` (the embedded daemon's tests pass a recorder).
    package func startService(sink: any ServiceNotifySink, watchdogMicroseconds: UInt64?, closeSink: @escaping () -> Void = {}) {
        core.startService(sink: sink, watchdogMicroseconds: watchdogMicroseconds, closeSink: closeSink)
    }

    /// Tells the service manager `READY=1` (`DaemonCore.becameReady`).
    package func becameReady() { core.becameReady() }

    /// Closes the journal without committing anything more, as a killed process would leave it.
    package func releaseJournalAfterCrash() { core.app.releaseJournalAfterCrash() }

    /// Takes a checkpoint of the user's place now and compacts the journal to it when it checks out
    /// (docs/restore.md, "Long sessions"), as `--compact-after` does when due; `Stats` says what came
    /// of it. False when none was tried: no journal, or something in flight. For `AppTester`.
    package func checkpointNow() -> Bool { core.app.checkpointNow() }

    /// What the start did not carry from another version's journal (or one that did not replay), each
    /// with why; empty when it carried everything or nothing was carried.
    package var notCarried: [String] { core.app.persistence.notCarried }

    // MARK: Looking in (tests, the embedded daemon, the debug surface)

    /// Which host shows which screen, serials, held commands and ack deadlines.
    package var delivery: ScreenDelivery { core.app.deliverySnapshot }
    /// Broken invariants of the runtime and of its agreement with the delivery (empty when sound).
    package func invariantViolations() -> [String] { core.app.invariantViolations() }
    /// The socket path spawned screens are told.
    package var socketPath: String { core.configuration.socketPath }
    /// Spawned processes not reaped yet.
    package var childCount: Int { core.hosts.processCount }
    /// Whether the daemon talks to a service manager (only `run()` starts a session, when one listens).
    package var hasServiceSession: Bool { core.service != nil }
    /// Ids of the connections the daemon holds, closing ones included.
    package var connectionIDs: [UInt64] { core.connections.ids }
    /// Dismissals the runtime waits for.
    package var pendingDismissals: Int { core.app.pendingDismissals }
    /// Work started and not finished (the embedded daemon waits for it).
    package var runningWorkCount: Int { core.app.runningWorkCount }
    /// Timers started and not fired.
    package var startedTimerCount: Int { core.app.startedTimerCount }
    /// The visible screen (nil without an app or a screen).
    package var visibleScreen: ScreenID? { core.app.visibleScreen }
    /// Everything of the runtime a restore must give back (`RuntimeImage`; nil without an app).
    package func runtimeImage() -> RuntimeImage? { core.app.runtimeImage() }
    /// What `flowctl stats` shows.
    package func stats() -> Flowd_V1_Stats { core.stats() }
    /// What `flowctl tree` shows.
    package func tree() -> Flowd_V1_Tree { core.tree() }
    /// The app's contract, as `flowctl contract` shows it.
    package func appContract() -> Flowd_V1_AppContract { core.appContract() }

    // MARK: Signals

    /// SIGTERM, SIGINT, SIGQUIT and SIGHUP stop gracefully (a closed terminal, Ctrl-\\: the journal is
    /// kept as for any stop). SIGHUP stays ignored when it came ignored (`nohup`: the caller asked flowd
    /// to outlive the terminal). The handlers replace any other inherited disposition.
    private func installSignalHandlers(on uv: UVLoop) throws(DaemonError) {
        var stopping = [SIGTERM, SIGINT, SIGQUIT]
        if !Self.inheritedIgnored(SIGHUP) { stopping.append(SIGHUP) }
        for signum in stopping {
            do {
                let signal = try UVSignal(loop: uv)
                signals.append(signal)
                try signal.start(signum) { [unowned self] received in
                    core.signalReceived(received)
                }
            } catch {
                throw .loop(error, doing: "installing the handler for signal \(signum)")
            }
        }
    }

    /// Whether `signum` came ignored from the parent (`SIG_IGN` survives exec): the kernel's
    /// `SigIgn` mask in /proc/self/status (a C function pointer does not compare in Swift).
    private static func inheritedIgnored(_ signum: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigIgn:") }),
              let mask = UInt64(line.dropFirst("SigIgn:".count).trimmingSpaces, radix: 16)
        else { return false }
        return mask & (1 << UInt64(signum - 1)) != 0
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
}

/// What a callback that may run after its daemon is gone holds instead of a weak reference to the
/// daemon (a child's exit, a work result posted from another thread): a weak reference gives the
/// daemon a side table, and then every retain and release of it — two per read callback, one per
/// loop iteration — takes the runtime's slow path (0.27 k instructions per `flowd-relay` output,
/// callgrind). The daemon's `deinit` marks it ended; an unowned reference keeps the count inline.
/// Like the loop's other hooks, it is used on the loop's thread only, where the daemon is also
/// released: `ended` needs no lock, and `daemon` is never read during the teardown.
final class DaemonAnchor {
    private unowned let target: Daemon
    private var ended = false

    init(_ daemon: Daemon) { target = daemon }

    /// The daemon, or nil once it is gone.
    var daemon: Daemon? { ended ? nil : target }

    /// Called by the daemon's `deinit`.
    func daemonEnded() { ended = true }
}
