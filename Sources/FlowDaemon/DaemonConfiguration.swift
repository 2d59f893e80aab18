import FlowWire

#if canImport(Glibc)
import Glibc
#endif

/// Everything the daemon can be told at start-up. Defaults (`Defaults`) are the documented
/// limits of docs/protocol.md; tests shorten the timeouts.
public struct DaemonConfiguration: Sendable {
    /// The Unix socket the daemon listens on.
    public var socketPath: String
    /// What `Welcome.server` says the daemon is (`flowctl ping` prints it): flowd's name and version,
    /// or a custom daemon's name with flowd's version beside it (`FlowdCommand` sets it).
    public var server = "flowd \(FlowWire.FlowdVersion.string)"
    /// The program a person runs this daemon as: `flowd`, or a custom daemon's command name
    /// (`FlowdCommand` sets it). `Stats.server` carries it, so that flowctl's hints name the program
    /// that can replay what this daemon recorded (`shopd replay bug.rec`, not `flowd replay`).
    public var program = "flowd"
    /// How long a new connection may take to send a complete `Hello`, in milliseconds.
    public var handshakeTimeoutMilliseconds = Defaults.handshakeTimeoutMilliseconds
    /// The largest frame either side may send, in bytes, before negotiation.
    public var maxFrameSize = Defaults.maxFrameSize
    /// Bytes queued for one connection beyond which it is disconnected as a stalled reader.
    public var writeQueueLimit = Defaults.writeQueueLimit
    /// Frames of one connection handled per loop iteration at most; the rest waits in its socket
    /// (reading pauses) until its next turn, so that one peer cannot hold the loop (docs/daemon.md).
    public var framesPerTurn = Defaults.framesPerTurn
    /// Of those, inputs to the flows (outputs, user navigation, links, injections) per iteration at
    /// most: each runs a flow and may send commands to any host.
    public var inputsPerTurn = Defaults.inputsPerTurn
    /// How long a screen may take to acknowledge a command, in milliseconds.
    public var ackTimeoutMilliseconds = Defaults.ackTimeoutMilliseconds
    /// How long a graceful shutdown waits for clients to read their `Shutdown`, in milliseconds.
    public var shutdownGraceMilliseconds = Defaults.shutdownGraceMilliseconds
    /// How long a spawned screen process may outlive its screen before SIGTERM
    /// (and as long again before SIGKILL), in milliseconds.
    public var spawnExitGraceMilliseconds = Defaults.spawnExitGraceMilliseconds
    /// How long a dropped attached host's screens are held for it to resume, in milliseconds (0: not
    /// at all; its screens are lost with the connection).
    public var resumeGraceMilliseconds = Defaults.resumeGraceMilliseconds
    /// How long a host with commands unacknowledged may leave the watchdog's `Ping` unanswered before
    /// it is treated as hung, in milliseconds (0: no watchdog). Keep it below the ack timeout: a hang
    /// is found within 1.75 × this.
    public var hangTimeoutMilliseconds = Defaults.hangTimeoutMilliseconds
    /// How long a peer that began a frame after the handshake may stay silent before it is cut off
    /// with `FRAME_TIMEOUT`, in milliseconds (0: forever). Checked with this granularity: a stalled
    /// peer goes between one and two of these after its last byte.
    public var frameTimeoutMilliseconds = Defaults.frameTimeoutMilliseconds
    /// How long an attached screen may wait for a host providing its kind before the daemon reports
    /// it (log, `NO_HOST` event, `screens_without_host`), in milliseconds (0: never). It keeps waiting.
    public var hostWaitMilliseconds = Defaults.hostWaitMilliseconds
    /// The journal that keeps the app's state across restarts of the daemon (nil: none). Opened by
    /// `Daemon.openState()`; see docs/restore.md.
    public var statePath: String?
    /// Inputs the journal may hold before flowd compacts it to a checkpoint of the user's place
    /// (docs/restore.md, "Long sessions"; 0: never). Tried again after as many more when refused.
    public var compactAfterInputs = Defaults.compactAfterInputs
    /// Bytes of inputs and saved states that may wait in memory while the journal's writes fail (a
    /// full disk): past it, inputs and saved states get a non-fatal `LIMIT_EXCEEDED` and are not
    /// applied, and Pongs wait (docs/restore.md, "A full disk").
    public var journalBacklogLimit = Defaults.journalBacklogLimit
    /// A deep link opened once the app started (and was restored): `flowd --open LINK`.
    public var openLink: String?
    /// Whether the daemon exits once the app's root flow finished and unwound.
    public var exitWhenAppFinishes = true
    /// The uid that named-socket peers must have (the daemon's own by default).
    public var allowedUID: UInt32
    /// Connections the daemon holds at most, every role and spawned screens' included: a peer of the
    /// named socket past it is sent a fatal `LIMIT_EXCEEDED` and closed. By default the open-file limit
    /// less a reserve for the daemon's own descriptors (`Defaults.connectionLimit(openFiles:)`), so that
    /// the daemon refuses a peer before `accept` fails with EMFILE.
    public var maxConnections = Defaults.maxConnections
    /// Of `maxConnections`, the slots a screen host may not take: kept for debug clients, so that
    /// `flowctl` still answers while hosts flood the daemon.
    public var debugConnectionReserve = Defaults.debugConnectionReserve
    /// Connections one peer process (by its pid) may hold on the named socket (nil: half of
    /// `maxConnections`), so that one client cannot take every slot.
    public var maxConnectionsPerProcess: Int?
    /// The per-process limit in effect.
    public var effectiveMaxConnectionsPerProcess: Int { maxConnectionsPerProcess ?? max(1, maxConnections / 2) }
    /// Screens one attached host shows at once at most: a screen placed past it waits for another host
    /// of its kind, and the full host is told with a non-fatal `LIMIT_EXCEEDED`.
    public var maxScreensPerHost = Defaults.maxScreensPerHost
    /// Bytes of frames begun and not finished that all connections together may hold; the connection
    /// whose bytes pass it is sent a fatal `LIMIT_EXCEEDED` and closed (slow senders of large frames
    /// cannot make the daemon hold a frame size each, without bound).
    public var partialFrameBudget = Defaults.partialFrameBudget

    /// A configuration for `socketPath` with the default limits.
    public init(socketPath: String, allowedUID: UInt32 = UInt32(getuid())) {
        self.socketPath = socketPath
        self.allowedUID = allowedUID
    }

    /// The default of each limit, each number written once: the protocol's (docs/protocol.md) come
    /// from `WireProtocol`, the daemon's own are here. `flowd`'s options default to these too.
    public enum Defaults {
        /// Of `handshakeTimeoutMilliseconds`: the protocol's.
        public static let handshakeTimeoutMilliseconds = UInt64(WireProtocol.defaultHandshakeTimeoutMilliseconds)
        /// Of `maxFrameSize`: the protocol's.
        public static let maxFrameSize = WireProtocol.defaultMaxFrameSize
        /// Of `writeQueueLimit`: the protocol's.
        public static let writeQueueLimit = WireProtocol.defaultWriteQueueLimit
        /// Of `framesPerTurn`: 64 frames of one connection per loop iteration.
        public static let framesPerTurn = 64
        /// Of `inputsPerTurn`: 16 of them inputs to the flows.
        public static let inputsPerTurn = 16
        /// Of `ackTimeoutMilliseconds`: the protocol's.
        public static let ackTimeoutMilliseconds = UInt64(WireProtocol.defaultAckTimeoutMilliseconds)
        /// Of `shutdownGraceMilliseconds`: 2 s for clients to read their `Shutdown`.
        public static let shutdownGraceMilliseconds: UInt64 = 2_000
        /// Of `spawnExitGraceMilliseconds`: the protocol's.
        public static let spawnExitGraceMilliseconds = UInt64(WireProtocol.defaultSpawnExitGraceMilliseconds)
        /// Of `resumeGraceMilliseconds`: the protocol's.
        public static let resumeGraceMilliseconds = UInt64(WireProtocol.defaultResumeGraceMilliseconds)
        /// Of `hangTimeoutMilliseconds`: the protocol's.
        public static let hangTimeoutMilliseconds = UInt64(WireProtocol.defaultHangTimeoutMilliseconds)
        /// Of `frameTimeoutMilliseconds`: the protocol's.
        public static let frameTimeoutMilliseconds = UInt64(WireProtocol.defaultFrameTimeoutMilliseconds)
        /// Of `hostWaitMilliseconds`: 5 s before a screen without a host is reported.
        public static let hostWaitMilliseconds: UInt64 = 5_000
        /// Of `compactAfterInputs`: 2,048 inputs, at most about 100 KiB of journal and 35-60 ms of replay
        /// of the demo launcher's inputs, for a checkpoint of about a millisecond (docs/restore.md).
        public static let compactAfterInputs = 2_048
        /// Of `journalBacklogLimit`: 8 MiB, some 100,000 taps of the demo's size.
        public static let journalBacklogLimit = 8 << 20
        /// Of `maxConnections`: `connectionLimit(openFiles:)` of this process's open-file limit (its soft
        /// `RLIMIT_NOFILE`, which flowd first raises to the hard limit).
        public static var maxConnections: Int { connectionLimit(openFiles: ResourceLimits.openFileLimit()) }
        /// The connections a daemon allowed `openFiles` descriptors holds: that many less a reserve for its
        /// own (the loop's, the listener, the journal, the log, spawning): an eighth of them, at least 32
        /// and at most 256; never below 16. 1,024 descriptors give 896 connections; 128 give 96.
        public static func connectionLimit(openFiles: Int) -> Int {
            max(16, openFiles - min(256, max(32, openFiles / 8)))
        }
        /// Of `debugConnectionReserve`: 8 slots that screen hosts may not take.
        public static let debugConnectionReserve = 8
        /// Of `maxScreensPerHost`: 16,384 screens on one attached host.
        public static let maxScreensPerHost = 16_384
        /// Of `partialFrameBudget`: 64 MiB of unfinished frames, all connections together (64 frames of
        /// the default maximum size at once).
        public static let partialFrameBudget = 64 << 20
    }
}
