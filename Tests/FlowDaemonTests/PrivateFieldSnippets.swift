// docs/flows.md's example of the private-field trap and its fix ("A memento: what the place does not
// name"), compiled and run here: each region between `// snippet: NAME` and `// end: NAME` must equal
// the page's block after `<!-- snippet: NAME -->` (DocCSnippetTests checks it, line for line).
import FlowApp
import FlowDaemonTesting
import FlowKit
import Foundation
import Testing

// snippet: private-field-trap
/// Each checkout takes the next order number, which no screen shows before the user pays.
final class ShopFlow: Flow, LinkHandling {
    typealias RequiredContext = NavigationStack
    private var nextOrder = 1  // the trap: decided on later, shown by no screen yet

    func start(_ flow: FlowContext<ShopFlow>) {
        let home = flow.show(TallyScreen.self, TallyScreen.State(title: "Shop", buttons: ["Checkout"]))
        home.onOutput { [unowned self] _ in open(CheckoutFlow(order: takeOrder()), in: flow) }
    }

    func takeOrder() -> Int {
        defer { nextOrder += 1 }
        return nextOrder
    }

    func open(_ checkout: CheckoutFlow, in flow: FlowContext<ShopFlow>) {
        flow.start(checkout, .pushed(in: flow.context)) { _, dismisser in dismisser.dismiss(animated: true) } onEnd: { _ in }
    }

    func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<ShopFlow> {
        guard let first = link.first else { return .here() }
        guard first == "checkout" else { throw link.unknown() }
        return .start(CheckoutFlow(order: takeOrder()), consuming: 1) { [unowned self] flow, checkout in open(checkout, in: flow) }
    }

    func place(toward child: (any Flow)?) -> [String]? { child is CheckoutFlow ? ["checkout"] : [] }
}

final class CheckoutFlow: Flow, LinkHandling {
    typealias RequiredContext = NavigationStack
    let order: Int

    init(order: Int) { self.order = order }

    func start(_ flow: FlowContext<CheckoutFlow>) {
        let screen = flow.show(TallyScreen.self, TallyScreen.State(title: "Checkout", buttons: ["Pay", "Cancel"]))
        screen.onOutput { [unowned self] output in
            guard case .pressed(0) = output else { return flow.finish(()) }
            screen.update(TallyScreen.State(title: "Paid: order #\(order)", buttons: []))
        }
    }

    func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<CheckoutFlow> { .here() }
}
// end: private-field-trap

// snippet: private-field-fix
/// The same shop with the fix: what the flow decides on later is in its memento.
final class KeptShopFlow: Flow, LinkHandling {
    typealias RequiredContext = NavigationStack
    struct Orders: Codable {
        var next = 1
        var open: Int?  // the number of the checkout on screen
    }
    private var orders = Orders()

    func start(_ flow: FlowContext<KeptShopFlow>) {
        let home = flow.show(TallyScreen.self, TallyScreen.State(title: "Shop", buttons: ["Checkout"]))
        home.onOutput { [unowned self] _ in open(CheckoutFlow(order: takeOrder()), in: flow) }
    }

    func takeOrder() -> Int {
        defer { orders.next += 1 }
        orders.open = orders.next
        return orders.next
    }

    func open(_ checkout: CheckoutFlow, in flow: FlowContext<KeptShopFlow>) {
        flow.start(checkout, .pushed(in: flow.context)) { [unowned self] _, dismisser in
            orders.open = nil
            dismisser.dismiss(animated: true)
        } onEnd: { [unowned self] _ in orders.open = nil }
    }

    func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<KeptShopFlow> {
        guard let first = link.first else { return .here() }
        guard first == "checkout" else { throw link.unknown() }
        // A rebuild reopens the checkout on screen with its own number; a new link takes the next.
        let order = orders.open ?? takeOrder()
        return .start(CheckoutFlow(order: order), consuming: 1) { [unowned self] flow, checkout in open(checkout, in: flow) }
    }

    func place(toward child: (any Flow)?) -> [String]? { child is CheckoutFlow ? ["checkout"] : [] }
    var memento: Orders { orders }  // given back right after start, before the link opens
    func restore(_ memento: Orders) { orders = memento }
}
// end: private-field-fix

@Suite struct PrivateFieldSnippetTests {
    // snippet: private-field-test
    /// Two checkouts, the first cancelled; a checkpoint in the second; the daemon restarts; pay.
    func paidAfterACheckpoint<F: Flow>(_ root: @escaping () -> F) throws -> String? where F.RequiredContext == NavigationStack {
        let app = App(name: "shop", modules: [TallyScreen.self], placer: windowRoot.withNavigationEmbedding(), root: root)
        let tester = try AppTester(app)
        try tester.send(.pressed(0), from: TallyScreen.self)  // checkout: order #1
        try tester.send(.pressed(1), from: TallyScreen.self)  // cancel
        try tester.send(.pressed(0), from: TallyScreen.self)  // checkout: order #2
        #expect(tester.checkpoint() == .taken(place: "checkout"))  // the screens look the same
        try tester.reopen()
        try tester.send(.pressed(0), from: TallyScreen.self)  // pay
        return try tester.state(of: TallyScreen.self)?.title
    }

    @Test func theOrderNumberSurvivesACheckpointOnlyInTheMemento() throws {
        #expect(try paidAfterACheckpoint { ShopFlow() } == "Paid: order #1")  // the trap: #1 again
        #expect(try paidAfterACheckpoint { KeptShopFlow() } == "Paid: order #2")
    }
    // end: private-field-test
}
