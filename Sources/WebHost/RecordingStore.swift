import Foundation

/// Recordings the inspector stopped, kept in memory until flowd-web exits, by a random name.
final class RecordingStore: @unchecked Sendable {  // the lock guards `files`
    private let lock = NSLock()
    private var files: [String: [UInt8]] = [:]

    /// Keeps `bytes`; returns the name to fetch them by.
    func keep(_ bytes: [UInt8]) -> String {
        let name = "flowd-" + String(AccessPolicy.randomToken().prefix(12)) + ".rec"
        lock.lock()
        files[name] = bytes
        lock.unlock()
        return name
    }

    /// The recording called `name`, if there is one.
    func file(_ name: String) -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        return files[name]
    }
}
