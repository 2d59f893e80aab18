import FlowControl
import FlowWire
import FlowdTestSupport
import Foundation
import Synchronization
import Testing

@testable import WebBridge

/// What a session told its page, for tests to wait on.
final class PageRecorder: @unchecked Sendable {  // `messages` is only touched under `condition`
    private let condition = NSCondition()
    private var messages: [[String: Any]] = []

    func receive(_ text: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return }
        condition.withLock {
            messages.append(object)
            condition.broadcast()
        }
    }

    /// Waits (woken by each message) for the first message since `index` that `matches`; returns it and its index.
    func next(after index: Int = 0, timeoutSeconds: Double = 10, _ matches: ([String: Any]) -> Bool) -> (message: [String: Any], index: Int)? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        return condition.withLock {
            while true {
                if let found = messages.indices.dropFirst(index).first(where: { matches(messages[$0]) }) { return (messages[found], found + 1) }
                if !condition.wait(until: deadline) { return nil }
            }
        }
    }
}

/// The `type` and the screen's `kind` of a page message.
private func placed(_ kind: String) -> ([String: Any]) -> Bool {
    { $0["type"] as? String == "place" && ($0["screen"] as? [String: Any])?["kind"] as? String == kind }
}

@Suite("TabSession: a browser tab as a screen host on a real flowd")
struct TabSessionTests {
    @Test("the page's ack is the daemon's ack; a tab that leaves is resumed by the next page with its token")
    func ackAndResume() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "launcher", "--no-state"], environment: ["FLOWD_PYTHON_SCREENS": "0"])
        let page = PageRecorder()
        let tab = TabSession(options: .init(socketPath: daemon.socketPath, name: "test tab")) { page.receive($0) }
        tab.start()
        let hello = try #require(page.next { $0["type"] as? String == "hello" })
        let token = try #require(hello.message["resumeToken"] as? String)
        #expect(!token.isEmpty && hello.message["resumed"] as? Bool == false)
        let menu = try #require(page.next(placed("menu")))
        let menuID = try #require((menu.message["screen"] as? [String: Any])?["id"] as? UInt64)
        #expect(menu.message["animated"] as? Bool == false)

        // Nothing is acked until the page says it drew the screen.
        let debug = try FlowClient.connect(path: daemon.socketPath, role: .debug, name: "test")
        defer { debug.close() }
        try debug.subscribe(kinds: [.ack, .hostDetached])
        #expect(try debug.tree().node(menuID)?.screen.ackedSerial == 0)
        try tab.receive(#"{"type":"ack","screen":\#(menuID),"serial":1}"#)
        try waitForEvent(debug) { $0.kind == .ack && $0.screenID == menuID && $0.serial == 1 }
        #expect(try debug.tree().node(menuID)?.screen.ackedSerial == 1)

        try tab.receive(#"{"type":"press","screen":\#(menuID),"index":0}"#)
        let welcome = try #require(page.next(after: menu.index, placed("tutorial")))
        let welcomeID = try #require((welcome.message["screen"] as? [String: Any])?["id"] as? UInt64)
        #expect(welcome.message["animated"] as? Bool == true)

        // The page goes (a reload): flowd holds the screens; the next page presents the token.
        tab.pageLeft()
        try waitForEvent(debug) { $0.kind == .hostDetached }
        #expect(try debug.tree().node(welcomeID)?.screen.delivery == "awaiting resume")
        let again = PageRecorder()
        let next = TabSession(options: .init(socketPath: daemon.socketPath, name: "test tab", resumeToken: token)) { again.receive($0) }
        next.start()
        let resumed = try #require(again.next { $0["type"] as? String == "hello" })
        #expect(resumed.message["resumed"] as? Bool == true)
        let back = try #require(again.next(placed("tutorial")))
        #expect((back.message["screen"] as? [String: Any])?["id"] as? UInt64 == welcomeID)
        #expect(back.message["animated"] as? Bool == false)
        next.pageLeft()
    }

    @Test("a stale resume token means a fresh start, and the page is told")
    func staleToken() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "launcher", "--no-state"], environment: ["FLOWD_PYTHON_SCREENS": "0"])
        let page = PageRecorder()
        let tab = TabSession(options: .init(socketPath: daemon.socketPath, name: "test tab", resumeToken: "not-a-token")) { page.receive($0) }
        tab.start()
        #expect(page.next { ($0["text"] as? String)?.contains("did not resume") == true } != nil)
        #expect(page.next(placed("menu")) != nil)
        tab.pageLeft()
    }

    /// Reads the event stream until an event `matches` (the daemon's word, no polling).
    private func waitForEvent(_ client: FlowClient, _ matches: (Flowd_V1_Event) -> Bool) throws {
        while true {
            if case .event(let event) = try client.receive(timeoutMilliseconds: 10_000).body, matches(event) { return }
        }
    }
}

@Suite("InspectorSession: a running recording is bounded")
struct InspectorRecordingTests {
    @Test("a recording that reaches its bound is stopped there, kept, and the page told why")
    func aRecordingThatReachesItsBoundIsStoppedAndKept() throws {
        // deep-stack pushes an item per press (injected; its screens wait for a host meanwhile).
        let daemon = try DaemonProcess(arguments: ["--app", "deep-stack", "--no-state", "--stay-up"])
        let page = PageRecorder()
        let kept = Mutex<[UInt8]?>(nil)
        // Enough for the starting tree and some events, not for a hundred pushes.
        let limit = 16 * 1024
        let session = InspectorSession(socketPath: daemon.socketPath, send: { page.receive($0) }, recordingLimit: limit) { bytes in
            kept.withLock { $0 = bytes }
            return "/recordings/test.rec"
        }
        session.start()
        _ = try #require(page.next { $0["type"] as? String == "tree" })
        try session.receive(#"{"type":"recordStart"}"#)
        let started = try #require(page.next { $0["type"] as? String == "recording" && $0["state"] as? String == "started" })
        let debug = try FlowClient.connect(path: daemon.socketPath, role: .debug, name: "test")
        defer { debug.close() }
        var stopped: (message: [String: Any], index: Int)?
        for _ in 0..<200 where stopped == nil {
            let top = try #require(try debug.tree().visibleScreen?.id, "a screen is visible")
            var inject = Flowd_V1_InjectOutput()
            inject.screenID = top
            inject.payload = .json(Data(#"{"didPressButton":{"index":0}}"#.utf8))
            _ = try debug.command(.injectOutput(inject))
            stopped = page.next(after: started.index, timeoutSeconds: 0.05) { $0["type"] as? String == "recording" && $0["state"] as? String == "stopped" }
        }
        let stop = try #require(stopped ?? page.next(after: started.index) { $0["type"] as? String == "recording" && $0["state"] as? String == "stopped" },
                                "the recording was never stopped")
        #expect(stop.message["url"] as? String == "/recordings/test.rec")
        let bytes = try #require(kept.withLock { $0 }, "what it held was kept")
        #expect(bytes.count <= limit && stop.message["bytes"] as? Int == bytes.count)
        let why = try #require(page.next(after: started.index) { $0["type"] as? String == "result" && $0["action"] as? String == "recordStop" })
        #expect((why.message["message"] as? String)?.contains("reached the \(limit) bytes") == true, "\(why.message)")
    }
}
