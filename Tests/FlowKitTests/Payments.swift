import FlowKit

/// A picker presented modally: one screen, one result (TransferWise's single-screen modal flow).
enum PickerScreen: ScreenModule {
    static let kind = "picker"
    struct State: Codable, Equatable { var items: [String] }
    enum Output: Codable, Equatable { case picked(Int), cancel }
}

final class PickerFlow: Flow {
    typealias RequiredContext = Presenter
    enum Result: Equatable { case picked(String), cancelled }
    let items: [String]
    init(items: [String]) { self.items = items }

    func start(_ flow: FlowContext<PickerFlow>) {
        let items = items
        flow.show(PickerScreen.self, .init(items: items)).onOutput { output in
            switch output {
            case .picked(let index): flow.finish(.picked(items[index]))
            case .cancel: flow.finish(.cancelled)
            }
        }
    }
}

enum PaymentScreen: ScreenModule {
    static let kind = "payment"
    struct State: Codable, Equatable { var amount: Int; var status: String }
    enum Output: Codable, Equatable { case pay }
}

enum VerificationScreen: ScreenModule {
    static let kind = "verification"
    struct State: Codable, Equatable { var attempt: Int }
    enum Output: Codable, Equatable { case code(String) }
}

enum ConfirmationScreen: ScreenModule {
    static let kind = "confirmation"
    struct State: Codable, Equatable { var message: String }
    enum Output: Codable, Equatable { case ok }
}

/// The sub-flow: verify a code; a wrong code is an error result.
final class VerificationFlow: Flow {
    typealias RequiredContext = NavigationStack
    struct Failure: Error, Equatable { var reason: String }
    typealias Result = Swift.Result<String, Failure>

    func start(_ flow: FlowContext<VerificationFlow>) {
        flow.show(VerificationScreen.self, .init(attempt: 1)).onOutput { output in
            guard case .code(let code) = output else { return }
            flow.finish(code == "1234" ? .success("token") : .failure(Failure(reason: "wrong code \(code)")))
        }
    }
}

/// Presents a payment screen (in a new stack), starts verification on pay, maps its error to
/// `canceled(reason:)`, and on success presents a confirmation, dismisses it and completes.
final class PaymentFlow: Flow {
    typealias RequiredContext = Presenter
    enum Result: Equatable { case completed(success: Bool), canceled(reason: String) }
    private(set) var verification: FlowID?

    func start(_ flow: FlowContext<PaymentFlow>) {
        let placed = flow.place(PaymentScreen.self, .init(amount: 10, status: "ready"), flow.placer.withNavigationEmbedding())
        let payment = placed.screen
        guard let stack = placed.context else { return }
        payment.onOutput { [weak self] _ in
            self?.verification = flow.start(VerificationFlow(), .pushed(in: stack)) { result, dismisser in
                dismisser.dismiss(animated: true)
                switch result {
                case .failure(let failure):
                    flow.finish(.canceled(reason: failure.reason))
                case .success:
                    payment.update(.init(amount: 10, status: "paid"))
                    let confirmation = flow.show(ConfirmationScreen.self, .init(message: "Paid"), .presented(on: payment))
                    confirmation.onOutput { _ in
                        confirmation.dismiss(animated: true) { _ in flow.finish(.completed(success: true)) }
                    }
                }
            } onEnd: { ending in
                // Back from verification leaves the payment ready; a failure cancels it.
                guard case .failed(let error) = ending else { return }
                flow.finish(.canceled(reason: error.message))
            }
        }
    }
}
