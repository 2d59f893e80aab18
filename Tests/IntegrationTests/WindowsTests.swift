import FlowControl
import FlowdTestSupport
import FlowWire
import Foundation
import Testing

/// Several windows from the outside (issue 49): the till app opens the customer's display as a window
/// beside the main one. A host is placed each window's screens with the window first on their path; a
/// display (flowd-shell's role) gets every window in its scene, each with its own visible screen and
/// transition; the customer's Pay reaches the cashier's flow.
@Suite("windows on several displays")
struct WindowsTests {
    @Test func theTillsCustomerWindowIsPlacedDrawnAndAnsweredFromTheOutside() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "till"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["till", "customer", "customer-pay"])
        let placed = try host.settle().compactMap(\.place)
        let till = try #require(placed.first { $0.kind == "till" })
        let customer = try #require(placed.first { $0.kind == "customer" })
        #expect(till.placement.path.first?.id == 1 && till.placement.path.first?.display == "")
        let window = try #require(customer.placement.path.first)
        #expect(window.kind == .window && window.id != 1 && window.display == "customer")
        #expect(till.placement.visible && customer.placement.visible, "each window shows its front: two visible screens")

        let display = try RawClient(path: daemon.socketPath)
        try display.handshake(role: .display, name: "shell")
        let first = try display.nextScene()
        #expect(first.visibleScreen == till.screenID)
        #expect(first.otherWindows.count == 1)
        let opened = try #require(first.otherWindows.first)
        #expect(opened.display == "customer" && opened.window.id == window.id && opened.window.kind == .window)
        #expect(opened.visibleScreen == customer.screenID)
        #expect(opened.window.children.first?.id == customer.screenID)
        #expect(opened.window.children.first?.displayToken == customer.displayToken)
        #expect(opened.transition.kind == .none)

        // Scan an apple and bread: the customer's basket updates; the scene does not change.
        try host.press(0, on: till.screenID)
        try host.press(1, on: till.screenID)
        let updates = try host.settle().compactMap(\.update)
        let basket = try #require(updates.last { $0.screenID == customer.screenID })
        #expect((basket.state.object["body"] as? String)?.contains("Total 3.50") == true, "\(basket.state.object)")

        // Take payment: the Pay prompt is presented in the customer's window, over the basket.
        try host.press(3, on: till.screenID)
        let prompt = try #require(try host.settle().compactMap(\.place).first { $0.kind == "customer-pay" })
        #expect(prompt.placement.path.first?.id == window.id && prompt.placement.path.first?.display == "customer")
        let presented = try #require(try display.scenesUntilPong().last)
        #expect(presented.visibleScreen == till.screenID, "the main window still shows the till")
        #expect(presented.transition.kind == .none)
        let customerWindow = try #require(presented.otherWindows.first)
        #expect(customerWindow.visibleScreen == prompt.screenID)
        #expect(customerWindow.transition.kind == .present && customerWindow.transition.toScreen == prompt.screenID)

        // The customer pays: the cashier's flow hears it, the prompt goes, the display is idle again.
        try host.press(0, on: prompt.screenID)
        let after = try host.settle()
        #expect(after.compactMap(\.dismiss).map(\.screenID) == [prompt.screenID])
        let cashier = try #require(after.compactMap(\.update).last { $0.screenID == till.screenID })
        #expect((cashier.state.object["body"] as? String)?.contains("Paid 3.50") == true, "\(cashier.state.object)")
        let idle = try #require(after.compactMap(\.update).last { $0.screenID == customer.screenID })
        #expect(idle.state.object["title"] as? String == "Welcome")
        let dismissed = try #require(try display.scenesUntilPong().last?.otherWindows.first)
        #expect(dismissed.visibleScreen == customer.screenID && dismissed.transition.kind == .dismiss)
    }

    /// `flowctl where` of the till: the main window has no link (the app's start: `-`), the customer's
    /// window is `customer`, or `customer/pay` while the Pay prompt shows.
    private static func place(_ socket: String) throws -> String {
        try ProductRun.run("flowctl", ["where", "--socket", socket]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func eachWindowHasItsPlaceAndFlowctlOpenTakesTheWholePlaceBack() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "till"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["till", "customer", "customer-pay"])
        let till = try #require(try host.settle().compactMap(\.place).first { $0.kind == "till" })
        #expect(try Self.place(daemon.socketPath) == "main: -\ncustomer: customer")

        try host.press(0, on: till.screenID) // scan an apple
        try host.press(3, on: till.screenID) // take payment
        let prompt = try #require(try host.settle().compactMap(\.place).first { $0.kind == "customer-pay" })
        let paying = try Self.place(daemon.socketPath)
        #expect(paying == "main: -\ncustomer: customer/pay")
        let debug = try FlowClient.connect(path: daemon.socketPath, role: .debug, name: "windows-test")
        let shape = try debug.tree().shapeLines
        #expect(shape.contains { $0.contains("customer-pay") }, "\(shape)")

        // Opening the whole place again (what `where` printed) changes nothing.
        let again = try ProductRun.run("flowctl", ["open", "--socket", daemon.socketPath, paying])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("opened customer/pay"), "\(again.stdout)")
        #expect(try host.settle().compactMap(\.place).isEmpty)
        #expect(try debug.tree().shapeLines == shape)

        // Cancel: the prompt goes, the customer's window is at `customer`, and its Pay is refused.
        try host.press(0, on: till.screenID)
        #expect(try host.settle().compactMap(\.dismiss).map(\.screenID) == [prompt.screenID])
        #expect(try Self.place(daemon.socketPath) == "main: -\ncustomer: customer")
        let refused = try ProductRun.run("flowctl", ["open", "--socket", daemon.socketPath, "customer/pay"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("the till is not taking a payment"), "\(refused.stderr)")

        // A line `-` alone opens nothing: a bad argument, said.
        let nothing = try ProductRun.run("flowctl", ["open", "--socket", daemon.socketPath, "-"])
        #expect(nothing.status == 64 && nothing.stderr.contains("no link to open"), "\(nothing.status) \(nothing.stderr)")
    }

    @Test func aCheckpointWithTheCustomersWindowOpenRestoresBothWindowsAfterAKill() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let arguments = ["--app", "till", "--compact-after", "4"]
        let daemon = try DaemonProcess(arguments: arguments, directory: directory)
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["till", "customer", "customer-pay"])
        let till = try #require(try host.settle().compactMap(\.place).first { $0.kind == "till" })
        for button in [0, 1, 0, 3] { // apple, bread, apple, take payment
            try host.press(button, on: till.screenID)
            _ = try host.settle()
        }
        _ = try host.ping()
        #expect(daemon.waitForLog("compacted the journal to a checkpoint"), "\(daemon.logText)")
        let debug = try FlowClient.connect(path: daemon.socketPath, role: .debug, name: "windows-test")
        let before = try debug.tree()
        #expect(before.stats.journalCheckpoints >= 1 && before.stats.journalCheckpointsRefused == 0, "\(before.stats.lastCheckpointRefusal)")
        #expect(before.otherWindows.first?.place == "customer/pay")
        let prompt = try #require(before.otherWindows.first?.visibleScreen)

        daemon.signal(SIGKILL)
        _ = daemon.waitForExit()
        let restarted = try DaemonProcess(arguments: arguments, directory: directory)
        #expect(restarted.waitForLog("restored the app from its journal"), "\(restarted.logText)")
        let after = try FlowClient.connect(path: restarted.socketPath, role: .debug, name: "windows-test").tree()
        #expect(after.shapeLines == before.shapeLines, "both windows, with the same ids")
        #expect(try Self.place(restarted.socketPath) == "main: -\ncustomer: customer/pay")

        // The restored prompt is the live one: the customer pays, the cashier's flow hears it.
        let rejoined = try RawClient(path: restarted.socketPath)
        try rejoined.handshake(provides: ["till", "customer", "customer-pay"])
        let placed = try rejoined.settle().compactMap(\.place)
        let cashier = try #require(placed.first { $0.kind == "till" })
        #expect((cashier.state.object["body"] as? String)?.contains("Total 4.50") == true, "\(cashier.state.object)")
        #expect(placed.contains { $0.kind == "customer-pay" && $0.screenID == prompt })
        try rejoined.press(0, on: prompt)
        let paid = try #require(try rejoined.settle().compactMap(\.update).last { $0.screenID == cashier.screenID })
        #expect((paid.state.object["body"] as? String)?.contains("Paid 4.50. Sale 1 done") == true, "\(paid.state.object)")
    }
}
