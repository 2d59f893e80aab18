/// Constants and negotiation rules of the flowd wire protocol (see docs/protocol.md).
public enum WireProtocol {
    /// The protocol version this module implements.
    public static let version: UInt32 = 1
    /// Every version this module can speak.
    public static let supportedVersions: ClosedRange<UInt32> = 1...1

    /// The maximum frame size before and without negotiation: 1 MiB.
    public static let defaultMaxFrameSize = 1 << 20
    /// The most bytes a `SaveState` may keep for one screen (docs/protocol.md §19).
    public static let maxSavedStateBytes = 16 * 1024
    /// The smallest maximum frame size negotiation can produce: 4 KiB.
    public static let minimumMaxFrameSize = 4 * 1024

    // The protocol's default timings (docs/protocol.md §16, §19), each written once: the daemon's
    // configuration, its command line and the client libraries take theirs from here.

    /// How long the daemon waits for a complete Hello by default, in milliseconds: 5 s.
    public static let defaultHandshakeTimeoutMilliseconds = 5_000
    /// How long the daemon waits for a complete Hello by default.
    public static let defaultHandshakeTimeout: Duration = .milliseconds(defaultHandshakeTimeoutMilliseconds)
    /// How long the daemon waits for an Ack by default, in milliseconds: 2 s.
    public static let defaultAckTimeoutMilliseconds = 2_000
    /// How long the daemon waits for an Ack by default.
    public static let defaultAckTimeout: Duration = .milliseconds(defaultAckTimeoutMilliseconds)
    /// How long a peer that began a frame after the handshake may stay silent by default before it is
    /// cut off (`FRAME_TIMEOUT`), in milliseconds: 10 s.
    public static let defaultFrameTimeoutMilliseconds = 10_000
    /// How long a screen host with commands unacknowledged may leave a `Ping` unanswered by default
    /// before it is treated as hung, in milliseconds: 1 s.
    public static let defaultHangTimeoutMilliseconds = 1_000
    /// How long the daemon holds a dropped attached host's screens by default for it to resume
    /// (`Welcome.resume_grace_ms`), in milliseconds: 5 s.
    public static let defaultResumeGraceMilliseconds = 5_000
    /// How long a spawned screen process may outlive its dismissed screen by default before the daemon
    /// sends SIGTERM (and as long again before SIGKILL), in milliseconds: 2 s.
    public static let defaultSpawnExitGraceMilliseconds = 2_000
    /// How long a client (ScreenKit, FlowControl, flowctl) waits for the daemon's answer by default (its
    /// `Welcome`, a reply, a `Pong`), in milliseconds: 5 s.
    public static let defaultReplyTimeoutMilliseconds = 5_000
    /// Bytes a connection's write queue may hold by default before the peer is disconnected: 4 MiB.
    public static let defaultWriteQueueLimit = 4 << 20

    /// The content type of JSON payloads (also meant by an empty content type).
    public static let jsonContentType = "application/json"

    /// Environment variable naming the inherited, already connected socket of a spawned screen ("3").
    public static let socketFDEnvironmentVariable = "FLOWD_SOCKET_FD"
    /// Environment variable holding a spawned screen's one-time token.
    public static let tokenEnvironmentVariable = "FLOWD_TOKEN"
    /// Environment variable overriding the daemon's socket path.
    public static let socketPathEnvironmentVariable = "FLOWD_SOCKET"

    /// The version both sides speak, the highest of them: nil if the client's range is empty or misses ours.
    public static func negotiateVersion(
        clientMin: UInt32,
        clientMax: UInt32,
        supported: ClosedRange<UInt32> = supportedVersions
    ) -> UInt32? {
        guard clientMin <= clientMax else { return nil }
        guard supported.overlaps(clientMin...clientMax) else { return nil }
        return min(supported.upperBound, clientMax)
    }

    /// The maximum frame size for a connection: the smaller of the client's request (0 = default) and
    /// the daemon's limit, never under `minimumMaxFrameSize`.
    public static func negotiateMaxFrameSize(requested: UInt32, local: Int = defaultMaxFrameSize) -> Int {
        let client = requested == 0 ? defaultMaxFrameSize : Int(requested)
        return max(min(client, local), minimumMaxFrameSize)
    }

    /// The socket path used when none is given on the command line: `$FLOWD_SOCKET`, else
    /// `$XDG_RUNTIME_DIR/flowd/flowd.sock`, else `/tmp/flowd-<uid>/flowd.sock`.
    public static func defaultSocketPath(environment: [String: String], uid: UInt32) -> String {
        if let path = environment[socketPathEnvironmentVariable], !path.isEmpty { return path }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return (runtime.hasSuffix("/") ? String(runtime.dropLast()) : runtime) + "/flowd/flowd.sock"
        }
        return "/tmp/flowd-\(uid)/flowd.sock"
    }
}
