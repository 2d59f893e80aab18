import Foundation
import Testing
import UVKit

/// A loop for one test, a fresh short temporary directory for its sockets, and a watchdog that stops a hung loop.
/// `finish` closes everything and checks libuv's rule: no handle left, `uv_loop_close` returns 0.
final class TestLoop {
    let loop: UVLoop
    let directory: String
    private let watchdog: UVTimer

    init() throws {
        UVSignal.ignoreBrokenPipe()
        loop = try UVLoop()
        var template = Array("/tmp/uvk-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw UVError.posix(errno, "mkdtemp") }
        directory = String(cString: made)
        watchdog = UVTimer(loop: loop)
        let loop = self.loop
        watchdog.start(after: 60_000) {
            Issue.record("watchdog: the loop was still busy after 60 s")
            loop.stop()
        }
        watchdog.unref()
    }

    /// A path in the test's directory.
    func path(_ name: String) -> String { directory + "/" + name }

    /// Runs the loop until no referenced handle is active.
    func run() { loop.run() }

    /// Closes `handles` and the watchdog, runs until idle, then expects no open handle and a clean `uv_loop_close`.
    func finish(closing handles: [UVHandle?] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        for handle in handles { handle?.close() }
        watchdog.close()
        loop.run()
        #expect(loop.openHandleCount == 0, sourceLocation: sourceLocation)
        try loop.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Runs `body`, recording a thrown error as a test failure (for use inside loop callbacks).
func record(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    do { try body() } catch { Issue.record(error, sourceLocation: sourceLocation) }
}

/// `count` bytes of a recognizable pattern.
func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 % 251) } }
