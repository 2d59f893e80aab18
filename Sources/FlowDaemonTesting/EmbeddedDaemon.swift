import FlowApp
import FlowDaemon
import FlowKit
import FlowWire
import Foundation
import Logging

/// The whole flowd core — connection state machines, screen delivery, the flow runtime, the event
/// bus, deadlines and the shutdown phases — in-process, on fake connections and a manual clock
/// (swift-nio's `EmbeddedChannel` idea). Connect peers, send them frames, read what the daemon
/// wrote, move the clock, and `finish()` reports anything left. Nothing happens behind the test's
/// back: the daemon runs only inside these calls, on the test's thread (the flows' asynchronous work
/// runs on a queue of its own, and its results enter only in `waitForWork()`).
public final class EmbeddedDaemon {
    /// The daemon under test (the same type `flowd` runs).
    public let daemon: Daemon
    let loop: EmbeddedLoop
    private let spawner: EmbeddedSpawner
    /// What `crashAndRestore()` starts the next daemon with.
    private let logger: Logger

    /// An embedded daemon running `app` (none: a daemon without an app); `configure` sets limits and
    /// timeouts; screens of `failingSpawns` kinds fail to spawn. The app starts at once.
    public convenience init(app: App?, failingSpawns: Set<String> = [],
                            logger: Logger = Logger(label: "flowd.embedded", factory: { _ in SwiftLogNoOpLogHandler() }),
                            configure: (inout DaemonConfiguration) -> Void = { _ in }) {
        // Without a state file nothing can fail.
        try! self.init(app: app, statePath: nil, failingSpawns: failingSpawns, logger: logger, configure: configure)
    }

    /// An embedded daemon that journals into `statePath` (a real journal file, the one `flowd` writes:
    /// docs/journal.md) and, if the journal holds inputs, restores from it first — as `flowd --state`
    /// does; a journal of another version of the app is an upgrade (docs/restore.md). ``AppTester``
    /// does this for a whole app. Its wall clock reads
    /// `wallClock` (milliseconds since the Unix epoch) until the test moves the clock: a restored
    /// daemon given a later one sees that time passed while no daemon ran. Throws as `flowd` exits.
    public init(app: App?, statePath: String?, failingSpawns: Set<String> = [], wallClock: UInt64 = EmbeddedDaemon.defaultWallClock,
                logger: Logger = Logger(label: "flowd.embedded", factory: { _ in SwiftLogNoOpLogHandler() }),
                configure: (inout DaemonConfiguration) -> Void = { _ in }) throws(DaemonError) {
        var configuration = DaemonConfiguration(socketPath: "/embedded/flowd.sock")
        configuration.statePath = statePath
        configure(&configuration)
        self.logger = logger
        loop = EmbeddedLoop(wallClock: wallClock)
        spawner = EmbeddedSpawner(loop: loop)
        spawner.failing = failingSpawns
        daemon = Daemon(configuration: configuration, app: app, logger: logger, loop: loop, spawner: spawner)
        spawner.embedded = self
        try daemon.openState()
        daemon.startApp()
        run()
    }

    /// Stops the daemon as `kill -9` would: nothing more runs, what was committed stays in its
    /// journal (every `run()` ends with the iteration's commit), and the journal is released so a
    /// new embedded daemon can restore from it.
    public func crash() {
        loop.closeInbox()
        daemon.releaseJournalAfterCrash()
    }

    /// Crashes this daemon (`crash()`) and starts a new one on the same journal, app, configuration
    /// and failing kinds, as a service manager restarts a killed `flowd`: it restores what was
    /// committed. Its clock starts at 0 and its wall clock where this one's is. The connections and
    /// children of this daemon are gone with it: peers connect to the new one (nothing of this one
    /// may be used afterwards). Throws as the init does.
    public func crashAndRestore() throws(DaemonError) -> EmbeddedDaemon {
        crash()
        let configuration = daemon.configuration
        return try EmbeddedDaemon(app: daemon.app, statePath: configuration.statePath, failingSpawns: spawner.failing,
                                  wallClock: wallClock, logger: logger) { $0 = configuration }
    }

    // MARK: Peers

    /// A peer connecting to the named socket with `uid` (the daemon's own by default); `identity`
    /// is who the kernel says it is (its executable, unit, label: what the app's policy matches),
    /// by default only that uid and pid.
    public func connect(uid: UInt32? = nil, pid: Int32 = 4242, identity: PeerIdentity? = nil) -> EmbeddedConnection {
        let pipe = EmbeddedPipe(loop: loop)
        let before = Set(daemon.connectionIDs)
        let uid = identity?.uid ?? uid ?? daemon.configuration.allowedUID
        daemon.accept(pipe, uid: uid, pid: identity?.pid ?? pid, identity: identity ?? PeerIdentity(uid: uid, gid: uid, pid: pid))
        let id = Set(daemon.connectionIDs).subtracting(before).first ?? 0
        run()
        return EmbeddedConnection(id: id, pipe: pipe, daemon: self)
    }

    /// Screen processes the daemon spawned, in order.
    public var children: [EmbeddedChild] { spawner.children }

    /// Kinds whose spawn fails from now on.
    public var failingSpawns: Set<String> {
        get { spawner.failing }
        set { spawner.failing = newValue }
    }

    // MARK: Time and work

    /// The loop's clock, in milliseconds.
    public var now: UInt64 { loop.now }

    /// Where every embedded daemon's wall clock starts unless told: 2023-11-14T22:13:20Z.
    public static let defaultWallClock: UInt64 = 1_700_000_000_000

    /// The daemon's wall clock (milliseconds since the Unix epoch): the one given at init, plus `now`.
    public var wallClock: UInt64 { loop.wallClock }

    /// The flows' work the daemon runs now (started, result not taken yet).
    public var runningWork: Int { daemon.runningWorkCount }

    /// Waits until every piece of the flows' work the daemon runs has posted its result, and feeds
    /// each (in the order they came) as `flowd` would: the only way work results enter the embedded
    /// daemon. Work its results start is waited for too. Returns false if work was still running
    /// after `timeout` seconds (then what came is fed).
    @discardableResult
    public func waitForWork(timeout: Double = 10) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while daemon.runningWorkCount > 0 {
            guard loop.runPostedJobs(waitingUntil: deadline) > 0 else { return false }
            run()
        }
        return true
    }

    /// Runs what the loop would run until nothing is left: close callbacks, wake-ups, backlogged
    /// frames, and the once-per-iteration flush of every outbox.
    public func run() {
        var iterations = 0
        repeat {
            iterations += 1
            // A daemon that never settles is a bug (a livelock); say so instead of hanging the test.
            precondition(iterations < 100_000, "the embedded daemon did not settle after 100,000 loop iterations")
        } while runIteration()
    }

    /// Runs one loop iteration and no more: what libuv runs first (close callbacks, a wake-up, which
    /// gives backlogged connections their next turn), then the end of the iteration (every outbox
    /// written; a new turn begins, with a fresh per-connection budget). Returns whether the loop
    /// has work for another iteration. Reads happen when a test's peer writes.
    @discardableResult
    public func runIteration() -> Bool {
        loop.iterate()
        daemon.endIteration()
        return loop.hasWork
    }

    /// Moves the clock forward, firing every deadline that passes on the way, in order.
    public func advanceTime(by milliseconds: UInt64) {
        let target = loop.now + milliseconds
        var fired = 0
        while let deadline = loop.armedDeadline, deadline <= target {
            fired += 1
            precondition(fired < 100_000, "the daemon re-armed a passed deadline 100,000 times at \(deadline) ms")
            if let fire = loop.move(to: deadline) { fire() }
            run()
        }
        _ = loop.move(to: target)
        run()
    }

    /// The daemon's process is stopped for `milliseconds` (SIGSTOP, a frozen cgroup, a VM pause), as
    /// flowd's loop finds it (`LoopAttention`): the wall clock moves, the daemon's clock does not, so
    /// no peer's deadline passes. What peers write meanwhile is read when the test lets them.
    public func pause(for milliseconds: UInt64) {
        loop.pause(for: milliseconds)
        run()
    }

    /// Starts a graceful shutdown, as SIGTERM does.
    public func shutdown() {
        daemon.beginShutdown(reason: .daemonExiting, message: "the embedded daemon was told to stop")
        run()
    }

    /// Where the daemon is: serving, or a phase of its shutdown.
    public var phase: Daemon.Phase { daemon.phase }

    // MARK: Finishing

    /// What is still alive.
    public struct Leftovers: Hashable, Sendable, CustomStringConvertible {
        /// Flows running.
        public var flows = 0
        /// Screens placed.
        public var screens = 0
        /// Commands sent and not acknowledged.
        public var pendingAcks = 0
        /// Commands held for screens without a host.
        public var heldCommands = 0
        /// Connections not closed.
        public var connections = 0
        /// Spawned children not exited.
        public var children = 0

        /// Whether nothing is left.
        public var isClean: Bool { self == Leftovers() }

        /// "clean", or what is left, counted.
        public var description: String {
            isClean ? "clean" : "left: \(flows) flows, \(screens) screens, \(pendingAcks) pending acks, \(heldCommands) held commands, \(connections) connections, \(children) children"
        }
    }

    /// Runs what is pending and reports what is left (`.isClean` when nothing is).
    public func finish() -> Leftovers {
        run()
        var left = Leftovers()
        let stats = daemon.stats()
        left.flows = Int(stats.flows)
        left.screens = Int(stats.screens)
        left.pendingAcks = Int(stats.pendingAcks)
        left.heldCommands = daemon.delivery.heldCommandCount
        left.connections = daemon.connectionIDs.count
        left.children = daemon.childCount
        return left
    }
}
