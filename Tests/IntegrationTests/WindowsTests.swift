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
}
