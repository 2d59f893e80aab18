import FlowKit
import FlowKitTesting
import Foundation
import Testing

/// A till: the cashier's screen in the main window; "open" starts the customer's flow in a window
/// on the display "customer" ("open-wait" waits for that display), "close" ends it.
final class TillFlow: Flow {
    typealias RequiredContext = Presenter
    private(set) var customer: [String] = []
    private(set) var customerFlow: FlowID?

    func start(_ flow: FlowContext<TillFlow>) {
        flow.show(PlainScreen.self, .init(title: "cashier")).onOutput { [weak self] output in
            guard let self, case .tap(let what) = output else { return }
            switch what {
            case "open-stack":
                flow.start(NestFlow("customer"), window(on: "customer").withNavigationEmbedding()) { _ in } onFinish: { _, _ in } onEnd: { _ in }
            case "open", "open-wait":
                let placer = window(on: "customer", whenAbsent: what == "open" ? .fail : .wait)
                customerFlow = flow.start(CustomerFlow(), placer) { [weak self] output in
                    self?.customer.append("output \(output)")
                } onFinish: { [weak self] result, dismisser in
                    self?.customer.append("finished \(result)")
                    dismisser.dismiss() // the till decides: the customer's window goes
                } onEnd: { [weak self] ending in
                    self?.customer.append("ended \(ending)")
                }
            default:
                break
            }
        }
    }
}

/// The customer's window: the basket; "pay" presents the payment prompt in the same window, whose
/// "paid" emits and closes it; "done" finishes the flow (its window closes).
final class CustomerFlow: Flow {
    typealias RequiredContext = Window
    typealias Output = String
    typealias Result = String

    func start(_ flow: FlowContext<CustomerFlow>) {
        flow.show(PlainScreen.self, .init(title: "basket")).onOutput { output in
            guard case .tap(let what) = output else { return }
            switch what {
            case "pay":
                flow.show(PlainScreen.self, .init(title: "pay"), presented(on: flow.context)).onOutput { _ in flow.emit("paid") }
            case "done":
                flow.finish("thanks")
            default:
                break
            }
        }
    }
}

@Suite("Windows on several displays")
struct WindowTests {
    /// A tester running the till, and its cashier's screen.
    func startTill() throws -> (FlowTester, TillFlow, ScreenID) {
        let tester = FlowTester()
        let till = TillFlow()
        _ = tester.start(till, windowRoot)
        return (tester, till, try #require(screen(titled: "cashier", in: tester)))
    }

    func screen(titled title: String, in tester: FlowTester) -> ScreenID? {
        tester.screens(PlainScreen.self).first { tester.state(of: $0, as: PlainScreen.self)?.title == title }
    }

    @Test func aFlowOpensAWindowOnADisplayWhoseScreensAreVisibleBesideTheMainWindow() throws {
        let (tester, till, cashier) = try startTill()
        try tester.send(.tap("open"), from: cashier, as: PlainScreen.self)

        let basket = try #require(screen(titled: "basket", in: tester))
        let placement = try #require(tester.placement(of: basket))
        guard case .otherWindow(let window, let display)? = placement.path.first else {
            Issue.record("the basket's path starts at its own window: \(placement.path)")
            return
        }
        #expect(display == "customer" && window != .window)
        #expect(placement.isVisible, "the front of its window is visible")
        #expect(tester.placement(of: cashier)?.isVisible == true, "the cashier's screen stays visible in the main window")
        #expect(tester.visibleScreen == cashier, "the main window's visible screen")
        let tree = tester.runtime.debugTree()
        #expect(tree.otherWindows == [.init(id: window, display: "customer", visibleScreen: basket)])
        #expect(tree.nodes.contains { $0.id == window && $0.kind == .window && $0.children == [basket] })
        #expect(tester.runtime.invariantViolations() == [])

        // A modal in the customer's window covers the basket there, and nothing in the main window.
        try tester.send(.tap("pay"), from: basket, as: PlainScreen.self)
        let pay = try #require(screen(titled: "pay", in: tester))
        #expect(tester.placement(of: pay)?.isVisible == true)
        #expect(tester.placement(of: pay)?.path.first == .otherWindow(window, display: "customer"))
        #expect(tester.placement(of: basket)?.isVisible == false, "covered by the payment prompt")
        #expect(tester.placement(of: cashier)?.isVisible == true)
        try tester.send(.tap("paid"), from: pay, as: PlainScreen.self)
        #expect(till.customer == ["output paid"])

        // The flow finishing unwinds what it placed: the window closes with its modal.
        try tester.send(.tap("done"), from: basket, as: PlainScreen.self)
        #expect(till.customer == ["output paid", "finished thanks"])
        #expect(screen(titled: "basket", in: tester) == nil && screen(titled: "pay", in: tester) == nil)
        #expect(tester.runtime.debugTree().otherWindows.isEmpty, "the window closed")
        #expect(tester.runtime.model.windows == [.window])
        #expect(tester.placement(of: cashier)?.isVisible == true)
        #expect(tester.runtime.invariantViolations() == [])
    }

    @Test func aDisplayNobodyProvidesFailsThePlacementOrWaitsAsTheAppChose() throws {
        let tester = FlowTester()
        _ = try tester.runtime.handle(.displaysChanged([Display(id: "main", name: "HDMI-A-1", width: 1280, height: 800)]))
        let till = TillFlow()
        _ = tester.start(till, windowRoot)
        let cashier = try #require(screen(titled: "cashier", in: tester))

        try tester.send(.tap("open"), from: cashier, as: PlainScreen.self)
        #expect(till.customer.count == 1)
        #expect(till.customer.first?.contains("displayUnavailable") == true, "a typed failure: \(till.customer)")
        #expect(till.customer.first?.contains("'customer'") == true)
        #expect(tester.runtime.model.windows == [.window], "nothing was left open")
        #expect(tester.placement(of: cashier)?.isVisible == true)
        #expect(tester.runtime.invariantViolations() == [])

        try tester.send(.tap("open-wait"), from: cashier, as: PlainScreen.self)
        let basket = try #require(screen(titled: "basket", in: tester), "with .wait the window opens in the model")
        #expect(tester.placement(of: basket)?.path.first.map { if case .otherWindow(_, "customer") = $0 { true } else { false } } == true)
        _ = try tester.runtime.handle(.displaysChanged([Display(id: "main"), Display(id: "customer", width: 800, height: 480)]))
        #expect(tester.runtime.displays?.map(\.id) == ["main", "customer"])
        #expect(tester.runtime.invariantViolations() == [])

        // With the display provided, a failing placement opens too.
        try tester.send(.tap("open"), from: cashier, as: PlainScreen.self)
        #expect(till.customer.count == 1, "no second failure: \(till.customer)")
    }

    @Test func aWindowsContentCanBeAStackWithItsOwnBack() throws {
        let (tester, _, cashier) = try startTill()
        try tester.send(.tap("open-stack"), from: cashier, as: PlainScreen.self)
        let first = try #require(screen(titled: "customer", in: tester))
        try tester.send(.tap("more"), from: first, as: PlainScreen.self)
        let second = try #require(screen(titled: "customer+", in: tester))
        let path = try #require(tester.placement(of: second)?.path)
        guard case .otherWindow(let window, "customer")? = path.first, case .stack? = path.last, path.count == 2 else {
            Issue.record("the pushed screen is in the customer window's stack: \(path)")
            return
        }
        #expect(tester.placement(of: second)?.isVisible == true && tester.placement(of: first)?.isVisible == false)
        #expect(tester.placement(of: cashier)?.isVisible == true)
        // Back in the customer's window pops its stack; the main window is untouched.
        try tester.back(from: second)
        #expect(screen(titled: "customer+", in: tester) == nil)
        #expect(tester.placement(of: first)?.isVisible == true)
        #expect(tester.placement(of: cashier)?.isVisible == true)
        #expect(tester.runtime.model.windows == [.window, window])
        #expect(tester.runtime.invariantViolations() == [])
    }

    @Test func theUserClosesAWindowAFlowOpenedButNotTheMainOne() throws {
        let (tester, till, cashier) = try startTill()
        try tester.send(.tap("open"), from: cashier, as: PlainScreen.self)
        let basket = try #require(screen(titled: "basket", in: tester))
        try tester.send(.tap("pay"), from: basket, as: PlainScreen.self)

        #expect(throws: FlowKitError.self) { try tester.runtime.receiveUserNavigation(.closeWindow, from: cashier) }
        #expect(tester.runtime.model.windows.count == 2, "a refused close changes nothing")
        // Any screen of the window names it, the covered basket too: the window goes with its modal.
        try tester.runtime.receiveUserNavigation(.closeWindow, from: basket)
        tester.settle()
        #expect(tester.runtime.model.windows == [.window])
        #expect(screen(titled: "basket", in: tester) == nil && screen(titled: "pay", in: tester) == nil)
        #expect(till.customer == ["ended dismissed by user"], "the customer's flow ended by the user: \(till.customer)")
        #expect(tester.placement(of: cashier)?.isVisible == true)
        #expect(tester.runtime.invariantViolations() == [])
    }
}
