import FlowControl
import FlowWire
import FlowdTestSupport
import Foundation
import Synchronization
import Testing

@testable import WebBridge

/// A page that acks, as the browser does, every command its tab's host is told.
private final class AckingPage: @unchecked Sendable {  // `tab` is set once, before the session starts
    let recorder = PageRecorder()
    var tab: TabSession?

    func receive(_ text: String) {
        recorder.receive(text)
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let serial = object["serial"] as? UInt64, serial > 0,
            let screen = (object["screen"] as? [String: Any])?["id"] as? UInt64 ?? object["id"] as? UInt64
        else { return }
        try? tab?.receive(#"{"type":"ack","screen":\#(screen),"serial":\#(serial)}"#)
    }
}

/// A page message about a screen of `kind` of `type` ("place", "update", …) whose title is `title`, if given.
private func screen(_ type: String, _ kind: String, title: String? = nil) -> ([String: Any]) -> Bool {
    { message in
        guard message["type"] as? String == type, let screen = message["screen"] as? [String: Any] else { return false }
        return screen["kind"] as? String == kind && (title == nil || screen["title"] as? String == title)
    }
}

private func view(_ message: [String: Any]) -> [String: Any] { message["screen"] as? [String: Any] ?? [:] }
private func id(_ message: [String: Any]) -> UInt64 { view(message)["id"] as? UInt64 ?? 0 }
private func display(_ message: [String: Any]) -> String? {
    ((view(message)["placement"] as? [String: Any])?["path"] as? [[String: Any]])?.first?["display"] as? String
}

@Suite("Display tabs: one browser tab per window, on a real flowd running the till")
struct DisplayTabTests {
    @Test("a display tab shows the windows on its display, whichever tab hosts them; its taps reach the flow; it is a display flowd knows")
    func tillInTwoTabs() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "till", "--no-state"], environment: ["FLOWD_PYTHON_SCREENS": "0"])
        let debug = try FlowClient.connect(path: daemon.socketPath, role: .debug, name: "test")
        defer { debug.close() }
        let board = DisplayBoard()

        // The cashier's tab hosts every screen: the till, and the customer's window on its display.
        let cashier = AckingPage()
        let cashierTab = TabSession(options: .init(socketPath: daemon.socketPath, name: "cashier", width: 1280, height: 800), board: board) {
            cashier.receive($0)
        }
        cashier.tab = cashierTab
        cashierTab.start()
        let till = try #require(cashier.recorder.next(screen("place", "till")))
        #expect(display(till.message) == nil, "the till is in the main window")
        let welcome = try #require(cashier.recorder.next(screen("place", "customer", title: "Welcome")))
        #expect(display(welcome.message) == "customer")

        // The customer's tab, opened after: told the screen already there (nothing to ack, no animation).
        let customer = PageRecorder()
        let customerTab = DisplaySession(display: "customer", board: board, width: 800, height: 480) { customer.receive($0) }
        customerTab.start()
        #expect(customer.next { $0["type"] as? String == "display" && $0["display"] as? String == "customer" } != nil)
        let shown = try #require(customer.next(screen("place", "customer", title: "Welcome")))
        #expect(id(shown.message) == id(welcome.message))
        #expect(shown.message["serial"] as? UInt64 == 0 && shown.message["animated"] as? Bool == false)
        // A tab of another display sees none of it.
        let rear = PageRecorder()
        let rearTab = DisplaySession(display: "rear", board: board) { rear.receive($0) }
        rearTab.start()

        // Scanned in the cashier's tab: the customer's tab shows the basket and its total.
        try cashierTab.receive(#"{"type":"press","screen":\#(id(till.message)),"index":0}"#)
        let basket = try #require(customer.next(after: shown.index, screen("update", "customer", title: "Your basket")))
        #expect((view(basket.message)["body"] as? String)?.contains("Total 1.00") == true)
        // flowd heard of the displays before that output: the cashier's host provides the main display
        // and each display a tab shows, sized as the pages said.
        let displays = try debug.tree().displays.displays
        #expect(displays.map(\.id) == ["customer", "main", "rear"], "\(displays)")
        #expect(displays.first { $0.id == "customer" }.map { [$0.width, $0.height] } == [800, 480])
        #expect(displays.first { $0.id == "main" }.map { [$0.width, $0.height] } == [1280, 800])

        // Take payment: the Pay prompt is presented in the customer's window, and its tap in the
        // customer's tab reaches the cashier's flow.
        try cashierTab.receive(#"{"type":"press","screen":\#(id(till.message)),"index":3}"#)
        let pay = try #require(customer.next(after: basket.index, screen("place", "customer-pay", title: "Pay 1.00")))
        #expect(display(pay.message) == "customer")
        try customerTab.receive(#"{"type":"ack","screen":\#(id(pay.message)),"serial":1}"#)  // dropped: the hosting page acks
        try customerTab.receive(#"{"type":"press","screen":\#(id(pay.message)),"index":0}"#)
        #expect(cashier.recorder.next(after: till.index) { screen("update", "till")($0) && (view($0)["body"] as? String)?.contains("Paid 1.00") == true } != nil)
        // The sale is over: the prompt goes and the customer's tab is idle again.
        let gone = try #require(customer.next(after: pay.index) { $0["type"] as? String == "dismiss" && $0["id"] as? UInt64 == id(pay.message) })
        #expect(customer.next(after: gone.index, screen("update", "customer", title: "Welcome")) != nil)
        #expect(rear.next(timeoutSeconds: 0) { $0["type"] as? String != "display" } == nil, "the rear display's tab was told nothing")

        // The display tabs close: flowd no longer has their displays (seen after the next output).
        customerTab.pageLeft()
        rearTab.pageLeft()
        try cashierTab.receive(#"{"type":"press","screen":\#(id(till.message)),"index":1}"#)
        #expect(cashier.recorder.next(after: till.index) {
            screen("update", "customer", title: "Your basket")($0) && (view($0)["body"] as? String)?.contains("Bread") == true
        } != nil)
        #expect(try debug.tree().displays.displays.map(\.id) == ["main"])

        // A display tab opened again gets the window as it is; the hosting tab leaving takes its screens away.
        let again = PageRecorder()
        let againTab = DisplaySession(display: "customer", board: board) { again.receive($0) }
        againTab.start()
        let back = try #require(again.next(screen("place", "customer", title: "Your basket")))
        cashierTab.pageLeft()
        #expect(again.next(after: back.index) { $0["type"] as? String == "forget" && $0["id"] as? UInt64 == id(welcome.message) } != nil)
        #expect(board.screenIDs(on: "customer").isEmpty)
        againTab.pageLeft()
    }

    @Test("a display tab's request for a screen not on its display is dropped and the page told; it cannot open links")
    func requestsOffTheDisplay() throws {
        let board = DisplayBoard()
        let page = PageRecorder()
        let tab = DisplaySession(display: "customer", board: board) { page.receive($0) }
        tab.start()
        try tab.receive(#"{"type":"press","screen":7,"index":0}"#)
        #expect(page.next { ($0["text"] as? String) == "that screen is no longer on the display customer" } != nil)
        #expect(throws: MessageError.self) { try tab.receive(#"{"type":"open","link":"till"}"#) }
        #expect(DisplaySession.problem(with: "") != nil && DisplaySession.problem(with: String(repeating: "x", count: 65)) != nil)
        #expect(DisplaySession.problem(with: "customer") == nil)
        tab.pageLeft()
    }
}

@Suite("PreviewSession: a moment's screens for the page")
struct PreviewMessagesTests {
    @Test("a card of a window on another display is placed there, its JSON decoded as a host decodes it (no buttons key)")
    func aWindowOnAnotherDisplay() throws {
        var moment = Flowd_V1_Moment()
        moment.index = 3
        moment.count = 3
        var screen = Flowd_V1_MomentScreen()
        screen.id = 3
        screen.kind = "customer"
        screen.flowID = 2
        screen.state = .json(Data(#"{"title":"Your basket","body":"Apple 1.00\nTotal 1.00"}"#.utf8))
        var window = Flowd_V1_PathElement()
        window.kind = .window
        window.id = 4
        window.display = "customer"
        var leaf = Flowd_V1_PathElement()
        leaf.kind = .screen
        leaf.id = 3
        screen.placement.path = [window, leaf]
        screen.placement.visible = true
        moment.screens = [screen]
        let messages = PreviewSession.messages(moment, app: "till").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(messages.first?["type"] as? String == "preview")
        let placed = try #require(messages.last)
        #expect(placed["type"] as? String == "place" && placed["serial"] as? UInt64 == 0, "\(placed)")
        #expect(view(placed)["title"] as? String == "Your basket" && (view(placed)["buttons"] as? [String])?.isEmpty == true)
        #expect(display(placed) == "customer")
    }
}
