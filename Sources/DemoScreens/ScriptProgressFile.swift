import Foundation
import ScreenKit

#if canImport(Glibc)
import Glibc
#endif

/// The progress file shared by the spawned demo-screens processes of one walk
/// (`$DEMO_SCREENS_PROGRESS`): one `started LINE screen ID` or `done LINE`
/// line per record, appended with `O_APPEND` (a short write is one piece, so
/// records of different processes never interleave), read whole each time a
/// process decides (it stays a few hundred lines).
public final class ScriptProgressFile {
    /// Why the file cannot be used.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, on which path, and why.
        public var description: String
    }

    /// Where the records are.
    public let path: String
    private let descriptor: Int32
    private var watchDescriptor: Int32 = -1

    /// Opens (creating it if needed) the file at `path` for appending.
    public init(path: String) throws(Failure) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.failure("cannot open the progress file \(path)") }
    }

    deinit {
        close(descriptor)
        if watchDescriptor >= 0 { close(watchDescriptor) }
    }

    /// Every record so far.
    public func read() -> ScriptProgress {
        ScriptProgress(parsing: String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self))
    }

    /// Records that `screen` starts `line` (before its frame is written).
    public func recordStarted(line: Int, screen: UInt64) throws(Failure) {
        try append(ScriptProgress.startedRecord(line: line, screen: screen))
    }

    /// Records `line` done (after its frame was written).
    public func recordDone(line: Int) throws(Failure) {
        try append(ScriptProgress.doneRecord(line: line))
    }

    private func append(_ record: String) throws(Failure) {
        let bytes = Array(record.utf8)
        while true {
            let written = write(descriptor, bytes, bytes.count)
            if written == bytes.count { return }
            if written < 0 && errno == EINTR { continue }
            throw Self.failure("cannot append to the progress file \(path)")
        }
    }

    /// Whether `watch(on:)` wakes the host when the file changes; if not, poll it.
    public private(set) var isWatched = false

    /// Makes `host`'s loop wake up whenever a process appends to the file (inotify), so a process
    /// notices at once that its step is next. Without inotify, `isWatched` stays false.
    public func watch(on host: ScreenHost) {
        #if os(Linux)
        let inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else { return }
        guard inotify_add_watch(inotify, path, UInt32(IN_MODIFY)) >= 0 else {
            close(inotify)
            return
        }
        watchDescriptor = inotify
        isWatched = true
        host.addInput(descriptor: inotify) {
            // Only drain the events: the loop reads the file after every wake-up.
            var events = [UInt8](repeating: 0, count: 4096)
            while Glibc.read(inotify, &events, events.count) > 0 {}
        }
        #endif
    }

    private static func failure(_ what: String) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(errno)))")
    }
}
