import FlowControl
import FlowWire
import FlowdTestSupport
import Foundation
import Testing

/// The debug client library (FlowControl) against the real daemon.
@Suite struct FlowClientTests {
    @Test func aRequestAnsweredAfterEventsReturnsAndKeepsTheEventsInOrder() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial", "--stay-up"])
        let watcher = try FlowClient.connect(path: daemon.socketPath, role: .debug, name: "watcher")
        try watcher.subscribe()
        // Events reach the watcher before the reply to its next request: a host joins and is placed.
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["tutorial"])
        _ = try host.settle()
        // Before the fix this request spun for ever: the events it set aside came back to it first.
        let answered = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var stats: Flowd_V1_Envelope?
        nonisolated(unsafe) let client = watcher  // used by the thread alone until it signals
        let thread = Thread {
            stats = try? client.request(.getStats(Flowd_V1_GetStats()))
            answered.signal()
        }
        thread.start()
        #expect(answered.wait(timeout: .now() + 10) == .success, "the request returned")
        guard case .stats? = stats?.body else { Issue.record("no Stats: \(String(describing: stats))"); return }
        var kinds: [Flowd_V1_EventKind] = []
        while let frame = try watcher.receiveIfAvailable(timeoutMilliseconds: 200) {
            if case .event(let event) = frame.body { kinds.append(event.kind) }
        }
        #expect(kinds.first == .connected, "the events set aside come first, in order: \(kinds)")
        #expect(kinds.contains(.handshake) && kinds.contains(.ack))
    }
}
