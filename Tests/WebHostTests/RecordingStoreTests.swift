import Foundation
import Testing
import WebBridge
@testable import WebHost

/// The recordings flowd-web keeps in memory: bounded in number and in bytes, the oldest let go
/// first with a rate-limited log line, and one over the byte limit refused with what to do.
@Suite struct RecordingStoreTests {
    final class Lines: @unchecked Sendable {  // the lock guards `lines`
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    @Test func theBytesKeptStayWithinTheLimitTheOldestGoingFirst() throws {
        let lines = Lines()
        let store = RecordingStore(limit: 32, byteLimit: 1000, log: lines.append)
        let start = ContinuousClock.now
        let first = try store.keep([UInt8](repeating: 1, count: 400), now: start)
        let second = try store.keep([UInt8](repeating: 2, count: 400), now: start)
        #expect(lines.all.isEmpty, "nothing let go yet")
        let third = try store.keep([UInt8](repeating: 3, count: 400), now: start)
        #expect(store.file(first) == nil, "the oldest went to keep within 1000 bytes")
        #expect(store.file(second)?.count == 400 && store.file(third)?.count == 400)
        #expect(store.byteCount == 800)
        #expect(lines.all == ["let 1 older recording(s) go to keep within 32 recordings and 1000 bytes; their links answer 404"])

        // Within the log's interval, what is let go is counted and said in the next line.
        _ = try store.keep([UInt8](repeating: 4, count: 400), now: start + .seconds(1))
        #expect(lines.all.count == 1)
        _ = try store.keep([UInt8](repeating: 5, count: 400), now: start + RecordingStore.logInterval + .seconds(1))
        #expect(lines.all.last == "let 2 older recording(s) go to keep within 32 recordings and 1000 bytes; their links answer 404")
        #expect(store.byteCount == 800)
    }

    @Test func aRecordingOverTheLimitAloneIsRefusedAndTheOthersKept() throws {
        let store = RecordingStore(limit: 32, byteLimit: 1000)
        let kept = try store.keep([UInt8](repeating: 1, count: 500))
        #expect(throws: RecordingRefusal("""
            the recording is 1001 bytes, over the 1000 bytes flowd-web keeps in memory; record or export a \
            shorter span, or use flowctl record, which writes a file
            """)) { try store.keep([UInt8](repeating: 2, count: 1001)) }
        #expect(store.file(kept)?.count == 500)
        #expect(store.byteCount == 500)
    }

    @Test func theNumberKeptStaysWithinTheLimit() throws {
        let store = RecordingStore(limit: 2, byteLimit: 1000)
        let names = try (0..<3).map { _ in try store.keep([0]) }
        #expect(store.file(names[0]) == nil && store.file(names[1]) != nil && store.file(names[2]) != nil)
    }
}
