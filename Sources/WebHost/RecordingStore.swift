import Foundation

/// Recordings the inspector stopped or exported, kept in memory by a random name until flowd-web
/// exits — the newest `limit` of them: an older one's link then answers 404.
final class RecordingStore: @unchecked Sendable {  // the lock guards `files` and `order`
    /// The most recordings kept.
    static let limit = 32
    private let lock = NSLock()
    private var files: [String: [UInt8]] = [:]
    /// Names, oldest first.
    private var order: [String] = []

    /// Keeps `bytes` (letting the oldest go past `limit`); returns the name to fetch them by.
    func keep(_ bytes: [UInt8]) -> String {
        let name = "flowd-" + String(AccessPolicy.randomToken().prefix(12)) + ".rec"
        lock.lock()
        defer { lock.unlock() }
        files[name] = bytes
        order.append(name)
        while order.count > Self.limit { files[order.removeFirst()] = nil }
        return name
    }

    /// The recording called `name`, if there is one.
    func file(_ name: String) -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        return files[name]
    }
}
