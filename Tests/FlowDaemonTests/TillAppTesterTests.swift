import DemoApps
import FlowApp
import FlowDaemonTesting
import FlowKit
import Foundation
import Testing

/// The till's two windows on the embedded daemon (issue 49, "several windows"): the customer's
/// window with its Pay prompt survives a checkpoint, a crash and an upgrade, each with its place.
@Suite("the till's windows through checkpoints, crashes and upgrades (AppTester)")
struct TillAppTesterTests {
    static func till(version: String) -> App {
        App(name: "till", version: version, modules: [TillScreen.self, CustomerScreen.self, CustomerPayScreen.self], placer: windowRoot) {
            TillFlow()
        }
    }

    /// The till's body text and the customer's screens, as the user sees them.
    static func seen(_ tester: AppTester) throws -> [String] {
        let till = try #require(try tester.state(of: TillScreen.self))
        let customer = try #require(try tester.state(of: CustomerScreen.self))
        let prompt = try tester.state(of: CustomerPayScreen.self)
        return [till.body, customer.title, customer.body, prompt?.title ?? "no prompt"]
    }

    @Test func theCustomersWindowAndItsPayPromptComeBackFromACheckpointACrashAndAnUpgrade() throws {
        let tester = try AppTester(Self.till(version: "1"))
        #expect(tester.windowPlaces == ["customer": "customer"])
        for button in [0, 1, 3] { // apple, bread, take payment
            try tester.send(.didPressButton(index: button), from: TillScreen.self)
        }
        #expect(tester.windowPlaces == ["customer": "customer/pay"])
        let before = try Self.seen(tester)
        #expect(before == ["Apple 1.00\nBread 2.50\nTotal 3.50\nWaiting for the customer to pay 3.50.", "Your basket",
                           "Apple 1.00\nBread 2.50\nTotal 3.50", "Pay 3.50"])

        let checkpoint = tester.checkpoint()
        guard case .taken = checkpoint else {
            Issue.record("the checkpoint was not taken: \(checkpoint)")
            return
        }
        let restored = try tester.reopen()
        #expect(restored.problems.isEmpty, "\(restored.problems)")
        #expect(try Self.seen(tester) == before)
        #expect(tester.windowPlaces == ["customer": "customer/pay"])

        let upgraded = try tester.upgrade(to: Self.till(version: "2"))
        #expect(upgraded.notCarried.isEmpty, "\(upgraded.notCarried)")
        #expect(try Self.seen(tester) == before)
        #expect(tester.windowPlaces == ["customer": "customer/pay"])

        // The restored prompt is live: the customer pays, the cashier's flow hears it.
        try tester.send(.didPressButton(index: 0), from: CustomerPayScreen.self)
        #expect(try tester.state(of: TillScreen.self)?.body == "Paid 3.50. Sale 1 done; next customer.")
        #expect(try tester.state(of: CustomerScreen.self)?.title == "Welcome")
        #expect(tester.windowPlaces == ["customer": "customer"])
        tester.stop()
    }
}
