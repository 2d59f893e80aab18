import FlowWire

#if canImport(Glibc)
import Glibc
#endif

/// Everything the daemon can be told at start-up. Defaults are the documented
/// limits of docs/protocol.md; tests shorten the timeouts.
public struct DaemonConfiguration: Sendable {
    /// The Unix socket the daemon listens on.
    public var socketPath: String
    /// How long a new connection may take to send a complete `Hello`, in milliseconds.
    public var handshakeTimeoutMilliseconds: UInt64 = 5_000
    /// The largest frame either side may send, in bytes, before negotiation.
    public var maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize
    /// Bytes queued for one connection beyond which it is disconnected as a stalled reader.
    public var writeQueueLimit: Int = 4 << 20
    /// Frames of one connection handled per loop iteration at most; the rest waits in its socket
    /// (reading pauses) until its next turn, so that one peer cannot hold the loop (docs/daemon.md).
    public var framesPerTurn: Int = Daemon.defaultFramesPerTurn
    /// Of those, inputs to the flows (outputs, user navigation, links, injections) per iteration at
    /// most: each runs a flow and may send commands to any host.
    public var inputsPerTurn: Int = Daemon.defaultInputsPerTurn
    /// How long a screen may take to acknowledge a command, in milliseconds.
    public var ackTimeoutMilliseconds: UInt64 = 2_000
    /// How long a graceful shutdown waits for clients to read their `Shutdown`, in milliseconds.
    public var shutdownGraceMilliseconds: UInt64 = 2_000
    /// How long a spawned screen process may outlive its screen before SIGTERM
    /// (and as long again before SIGKILL), in milliseconds.
    public var spawnExitGraceMilliseconds: UInt64 = 2_000
    /// How long a dropped attached host's screens are held for it to resume, in milliseconds (0: not
    /// at all; its screens are lost with the connection).
    public var resumeGraceMilliseconds: UInt64 = 5_000
    /// How long a host with commands unacknowledged may leave the watchdog's `Ping` unanswered before
    /// it is treated as hung, in milliseconds (0: no watchdog). Keep it below the ack timeout: a hang
    /// is found within 1.75 × this.
    public var hangTimeoutMilliseconds: UInt64 = 1_000
    /// How long a peer that began a frame after the handshake may stay silent before it is cut off
    /// with `FRAME_TIMEOUT`, in milliseconds (0: forever). Checked with this granularity: a stalled
    /// peer goes between one and two of these after its last byte.
    public var frameTimeoutMilliseconds: UInt64 = 10_000
    /// How long an attached screen may wait for a host providing its kind before the daemon reports
    /// it (log, `NO_HOST` event, `screens_without_host`), in milliseconds (0: never). It keeps waiting.
    public var hostWaitMilliseconds: UInt64 = 5_000
    /// The journal that keeps the app's state across restarts of the daemon (nil: none). Opened by
    /// `Daemon.openState()`; see docs/restore.md.
    public var statePath: String?
    /// A deep link opened once the app started (and was restored): `flowd --open LINK`.
    public var openLink: String?
    /// Whether the daemon exits once the app's root flow finished and unwound.
    public var exitWhenAppFinishes = true
    /// The uid that named-socket peers must have (the daemon's own by default).
    public var allowedUID: UInt32

    /// A configuration for `socketPath` with the default limits.
    public init(socketPath: String, allowedUID: UInt32 = UInt32(getuid())) {
        self.socketPath = socketPath
        self.allowedUID = allowedUID
    }
}
