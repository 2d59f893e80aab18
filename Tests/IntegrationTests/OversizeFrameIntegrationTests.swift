import FlowdTestSupport
import FlowWire
import Foundation
import Testing

/// A frame over the peer's maximum frame size on the real binaries (issue 46, bug 2): `flowctl tree`
/// of a tree larger than a frame is answered with flowd's `LIMIT_EXCEEDED`, not a timeout.
@Suite("Frames over a peer's maximum frame size")
struct OversizeFrameIntegrationTests {
    @Test func flowctlTreeOfATreeLargerThanAFrameSaysSoAtOnce() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "deep-stack", "--no-state", "--max-frame-size", "4096"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(name: "raw-host", provides: ["item"])
        let root = try #require(try host.settle().compactMap(\.place).first)
        try host.press(1, on: root.screenID)
        _ = try host.settle()
        let run = try flowctl(["tree", "--timeout", "10"], daemon)
        #expect(run.status == 1)
        #expect(run.stderr.contains("the Tree is") && run.stderr.contains("maximum frame size of 4096 bytes"), "\(run.stderr)")
        #expect(!run.stderr.contains("did not answer"), "\(run.stderr)")
        #expect(daemon.waitForLog("a frame is over the peer's maximum frame size"), "\(daemon.logText)")
        let stats = try flowctl(["stats"], daemon)
        #expect(stats.status == 0, "the daemon and its other answers go on: \(stats.stderr)")
    }
}
