import FlowKit
import FlowKitTesting
import Foundation
import Testing

/// A screen of numbered choices: it can send only a choice it shows (`ScreenModule.refusal`).
enum ChoiceScreen: ScreenModule {
    static let kind = "choice"
    struct State: Codable { var choices: [String] }
    enum Output: Codable { case chose(index: Int) }

    static var refusesOutputs: Bool { true }

    static func refusal(of output: Output, in state: State) -> String? {
        guard case .chose(let index) = output else { return nil }
        let shown = state.choices.count
        return index < shown ? nil : "it shows \(shown) choices; there is no choice \(index)"
    }
}

/// A flow that counts the choices it is told of.
final class ChoosingFlow: Flow {
    typealias RequiredContext = NavigationStack
    var chosen: [Int] = []
    func start(_ flow: FlowContext<ChoosingFlow>) {
        let screen = flow.show(ChoiceScreen.self, .init(choices: ["tea", "coffee"]))
        screen.onOutput { [unowned self] output in
            guard case .chose(let index) = output else { return }
            chosen.append(index)
            // The first choice offers a third one: refusals follow the screen's current state.
            if chosen.count == 1 { screen.update(.init(choices: ["tea", "coffee", "water"])) }
        }
    }
}

@Suite(.serialized) struct OutputRefusalTests {
    @Test func anOutputTheScreenCouldNotHaveSentIsRefusedAndTheFlowNeverSeesIt() throws {
        let tester = FlowTester()
        let flow = ChoosingFlow()
        _ = tester.start(flow, windowRoot.withNavigationEmbedding())
        let screen = try #require(tester.screen(ChoiceScreen.self))
        do {
            try tester.send(.chose(index: 5), from: screen, as: ChoiceScreen.self)
            Issue.record("a choice the screen does not show was accepted")
        } catch let error as FlowKitError {
            #expect(error.code == .outputDecodingFailed)
            #expect(error.message.contains("refused: it shows 2 choices; there is no choice 5"), "\(error.message)")
        }
        #expect(flow.chosen.isEmpty)
        try tester.send(.chose(index: 1), from: screen, as: ChoiceScreen.self)
        #expect(flow.chosen == [1])
        try tester.send(.chose(index: 2), from: screen, as: ChoiceScreen.self)
        #expect(flow.chosen == [1, 2])
        tester.expectSound()
    }
}
