import Foundation
import WebBridge

/// Recordings the inspector stopped or exported, kept in memory by a random name until flowd-web
/// exits — the newest `limit` of them, `byteLimit` bytes in all: an older one's link then answers
/// 404. A recording over `byteLimit` alone is refused, with what to do instead.
final class RecordingStore: @unchecked Sendable {  // the lock guards every field
    /// The most recordings kept.
    static let limit = 32
    /// The most bytes kept, all recordings together.
    static let byteLimit = RecordingRefusal.maxBytes
    /// The fewest seconds between two log lines about recordings let go.
    static let logInterval: Duration = .seconds(60)

    private let lock = NSLock()
    private var files: [String: [UInt8]] = [:]
    /// Names, oldest first.
    private var order: [String] = []
    private var bytes = 0
    /// Recordings let go since the last log line, and when that was.
    private var unlogged = 0
    private var loggedAt: ContinuousClock.Instant?
    private let limit: Int
    private let byteLimit: Int
    private let log: @Sendable (String) -> Void

    /// A store of at most `limit` recordings and `byteLimit` bytes that says through `log` (at most
    /// once a `logInterval`) how many older ones it let go to keep within them.
    init(limit: Int = RecordingStore.limit, byteLimit: Int = RecordingStore.byteLimit, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.limit = limit
        self.byteLimit = byteLimit
        self.log = log
    }

    /// Keeps `recording`, letting the oldest go past `limit` recordings or `byteLimit` bytes; returns
    /// the name to fetch it by. Refuses one over `byteLimit` alone, keeping the others.
    func keep(_ recording: [UInt8], now: ContinuousClock.Instant = .now) throws(RecordingRefusal) -> String {
        guard recording.count <= byteLimit else {
            throw RecordingRefusal("""
                the recording is \(recording.count) bytes, over the \(byteLimit) bytes flowd-web keeps in memory; \
                record or export a shorter span, or use flowctl record, which writes a file
                """)
        }
        let name = "flowd-" + String(AccessPolicy.randomToken().prefix(12)) + ".rec"
        var line: String?
        lock.withLock {
            files[name] = recording
            order.append(name)
            bytes += recording.count
            while order.count > limit || bytes > byteLimit {
                let oldest = order.removeFirst()
                bytes -= files.removeValue(forKey: oldest)?.count ?? 0
                unlogged += 1
            }
            if unlogged > 0, loggedAt.map({ now - $0 >= Self.logInterval }) ?? true {
                line = """
                    let \(unlogged) older recording(s) go to keep within \(limit) recordings and \(byteLimit) bytes; \
                    their links answer 404
                    """
                unlogged = 0
                loggedAt = now
            }
        }
        if let line { log(line) }
        return name
    }

    /// The recording called `name`, if there is one.
    func file(_ name: String) -> [UInt8]? {
        lock.withLock { files[name] }
    }

    /// Bytes kept, all recordings together.
    var byteCount: Int { lock.withLock { bytes } }
}
