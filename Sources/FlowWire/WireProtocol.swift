/// Constants and negotiation rules of the flowd wire protocol (see docs/protocol.md).
public enum WireProtocol {
    /// The protocol version this module implements.
    public static let version: UInt32 = 1
    /// Every version this module can speak.
    public static let supportedVersions: ClosedRange<UInt32> = 1...1

    /// The maximum frame size before and without negotiation: 1 MiB.
    public static let defaultMaxFrameSize = 1 << 20
    /// The smallest maximum frame size negotiation can produce: 4 KiB.
    public static let minimumMaxFrameSize = 4 * 1024

    /// How long the daemon waits for a complete Hello by default.
    public static let defaultHandshakeTimeout: Duration = .seconds(5)
    /// How long the daemon waits for an Ack by default.
    public static let defaultAckTimeout: Duration = .seconds(2)
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
