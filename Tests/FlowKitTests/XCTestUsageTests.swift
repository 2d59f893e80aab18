import FlowKit
import FlowKitTesting
import XCTest

/// FlowKitTesting works from XCTest too (failures would go through XCTFail).
final class XCTestUsageTests: XCTestCase {
    func testOnboardingFromXCTest() throws {
        let tester = FlowTester()
        let recorder = tester.start(OnboardingFlow(), windowRoot.withNavigationEmbedding())
        let welcome = try XCTUnwrap(tester.expectVisible(TutorialScreen.self))
        let done = try XCTUnwrap(tester.expectPush(when: welcome, of: TutorialScreen.self, sends: .didPressButton(index: 1), pushes: TutorialScreen.self))
        tester.send(.didPressButton(index: 0), from: TutorialScreen.self)
        tester.expectFinished(recorder, with: .finished, dismissing: [welcome, done])
        tester.expectEmpty()
    }
}
