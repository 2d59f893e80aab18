import FlowKit

/// The till (docs/demo.md, "The till"): one flow hierarchy behind two displays. The cashier's screen,
/// in the app's main window, scans items and takes the payment; the customer's display, a window on
/// the display `customer`, shows the basket as it grows, the total, and a Pay prompt whose tap the
/// cashier's flow receives as a typed output. When the sale ends, the customer's display goes back
/// to its idle screen.
///
/// Both flows handle links, so the till's journal compacts to a checkpoint like any app's: the
/// cashier's window is the app's start (no link), the customer's is `customer`, or `customer/pay`
/// while the Pay prompt shows (`flowctl where`); the basket and the sales count are the till's memento.
public final class TillFlow: Flow {
    public typealias RequiredContext = Presenter

    /// What the till sells: a name and a price in cents.
    public static let products: [(name: String, cents: Int)] = [("Apple", 100), ("Bread", 250), ("Milk", 120)]

    private var basket: [Int] = []
    private var awaitingPayment = false
    private var sales = 0
    private var cashier: Screen<TillScreen>?
    private var customer: CustomerDisplayFlow?

    public init() {}

    public func start(_ flow: FlowContext<TillFlow>) {
        let cashier = flow.show(TillScreen.self, card(note: note))
        self.cashier = cashier
        cashier.onOutput { [unowned self] output in
            guard case .didPressButton(let index) = output else { return }
            press(index)
        }
        // The customer's display opens with the till and waits for its display if no host has it yet.
        let display = CustomerDisplayFlow()
        customer = display
        flow.start(display, window(on: "customer", whenAbsent: .wait)) { [unowned self] output in
            switch output {
            case .paid: paid()
            }
        } onFinish: { _, dismisser in
            dismisser.dismiss()
        } onEnd: { [unowned self] ending in
            customer = nil
            say("The customer's display is gone (\(ending)).")
        }
    }

    /// The line under the basket on the cashier's screen.
    private var note = "Scan the first item."

    private func say(_ note: String) {
        self.note = note
        cashier?.update(card(note: note))
    }

    private var total: Int { basket.reduce(0) { $0 + Self.products[$1].cents } }

    static func money(_ cents: Int) -> String { "\(cents / 100).\(String(format: "%02d", cents % 100))" }

    /// Buttons: one per product, then Take payment; while the customer pays, only Cancel payment.
    private func card(note: String) -> CardState {
        let lines = basket.map { Self.products[$0].name + " " + Self.money(Self.products[$0].cents) }
        let body = (lines.isEmpty ? "" : lines.joined(separator: "\n") + "\nTotal " + Self.money(total) + "\n") + note
        if awaitingPayment { return CardState(title: "Till", body: body, buttons: ["Cancel payment"]) }
        return CardState(title: "Till", body: body, buttons: Self.products.map { "Scan \($0.name.lowercased())" } + ["Take payment"])
    }

    /// The customer's display shows the basket (or idle) and, when paying, has the total to ask for.
    private func showBasketToCustomer() {
        if basket.isEmpty { customer?.idle() } else { customer?.showBasket(basket.map { Self.products[$0] }, total: total) }
    }

    private func press(_ index: Int) {
        if awaitingPayment {
            awaitingPayment = false
            customer?.showBasket(basket.map { Self.products[$0] }, total: total)
            say("Payment cancelled.")
        } else if index < Self.products.count {
            basket.append(index)
            customer?.showBasket(basket.map { Self.products[$0] }, total: total)
            say("Scanned \(Self.products[index].name.lowercased()).")
        } else if basket.isEmpty {
            say("Nothing to pay yet: scan an item.")
        } else {
            awaitingPayment = true
            customer?.askToPay(total)
            say("Waiting for the customer to pay \(Self.money(total)).")
        }
    }

    /// The customer's Pay reached the cashier's flow: the sale ends, the display goes idle.
    private func paid() {
        guard awaitingPayment else { return }
        awaitingPayment = false
        sales += 1
        let amount = total
        basket = []
        customer?.idle()
        say("Paid \(Self.money(amount)). Sale \(sales) done; next customer.")
    }
}

extension TillFlow: LinkHandling {
    /// What the cashier has scanned, whether the customer is paying, the sales so far and the note.
    public struct Memento: Codable, Sendable {
        var basket: [Int]
        var awaitingPayment: Bool
        var sales: Int
        var note: String
    }

    public var memento: Memento { Memento(basket: basket, awaitingPayment: awaitingPayment, sales: sales, note: note) }

    public func restore(_ memento: Memento) {
        basket = memento.basket.filter { Self.products.indices.contains($0) }
        awaitingPayment = memento.awaitingPayment && !basket.isEmpty
        sales = memento.sales
        showBasketToCustomer()
        if awaitingPayment { customer?.expectPayment(total) }
        say(memento.note)
    }

    /// `customer…` goes on in the customer's display; nothing else is a place of the till.
    public func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<TillFlow> {
        switch link.first {
        case nil: return .here()
        case "customer":
            guard let customer else { throw link.refused("the customer's display is not open") }
            return .into(customer, consuming: 1)
        default: throw link.unknown()
        }
    }

    public func place(toward child: (any Flow)?) -> [String]? {
        child == nil ? [] : child is CustomerDisplayFlow ? ["customer"] : nil
    }
}

/// The customer's display: idle between sales, the basket and its total during one, and a Pay prompt
/// presented over the basket when the cashier takes the payment.
public final class CustomerDisplayFlow: Flow {
    public typealias RequiredContext = Window
    public enum Output: Equatable, Sendable { case paid }

    private var context: FlowContext<CustomerDisplayFlow>?
    private var basket: Screen<CustomerScreen>?
    private var prompt: Screen<CustomerPayScreen>?
    /// The total the till asks for while the customer pays (the Pay prompt's, shown or not yet).
    private var payable: Int?

    public init() {}

    static let idleCard = CardState(title: "Welcome", body: "Your items will show here.", buttons: [])

    public func start(_ flow: FlowContext<CustomerDisplayFlow>) {
        context = flow
        basket = flow.show(CustomerScreen.self, Self.idleCard)
    }

    func showBasket(_ items: [(name: String, cents: Int)], total: Int) {
        dismissPrompt()
        payable = nil
        let lines = items.map { $0.name + " " + TillFlow.money($0.cents) }
        basket?.update(CardState(title: "Your basket", body: (lines + ["Total " + TillFlow.money(total)]).joined(separator: "\n"), buttons: []))
    }

    /// The till takes the payment: the prompt is the window's place (`customer/pay`), shown by it.
    func expectPayment(_ total: Int) { payable = total }

    func askToPay(_ total: Int) {
        payable = total
        guard let context, let basket, prompt == nil else { return }
        let prompt = context.show(CustomerPayScreen.self, CardState(title: "Pay " + TillFlow.money(total), buttons: ["Pay"]),
                                  presented(on: basket))
        prompt.onOutput { output in
            if case .didPressButton(0) = output { context.emit(.paid) }
        }
        self.prompt = prompt
    }

    func idle() {
        dismissPrompt()
        payable = nil
        basket?.update(Self.idleCard)
    }

    private func dismissPrompt() {
        prompt?.dismiss()
        prompt = nil
    }
}

extension CustomerDisplayFlow: LinkHandling {
    /// `pay`: the Pay prompt, while the till takes a payment.
    public func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<CustomerDisplayFlow> {
        switch link.first {
        case nil: return .here()
        case "pay":
            guard let payable else { throw link.refused("the till is not taking a payment") }
            return .here(consuming: 1) { [unowned self] _ in askToPay(payable) }
        default: throw link.unknown()
        }
    }

    public func place(toward child: (any Flow)?) -> [String]? {
        child == nil ? (prompt == nil ? [] : ["pay"]) : nil
    }
}

/// The cashier's screen.
public enum TillScreen: CardScreen { public static let kind = "till" }
/// The customer's display: the basket, or idle.
public enum CustomerScreen: CardScreen { public static let kind = "customer" }
/// The Pay prompt on the customer's display.
public enum CustomerPayScreen: CardScreen { public static let kind = "customer-pay" }
