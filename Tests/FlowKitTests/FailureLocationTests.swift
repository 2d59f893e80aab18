import FlowKit
import FlowKitTesting
import Testing

@Suite("FlowKitTesting failures point at the caller")
struct FailureLocationTests {
    @Test func failedExpectationIsRecordedAtTheCallersLine() {
        let tester = FlowTester()
        tester.start(OnboardingFlow(), windowRoot.withNavigationEmbedding())
        let expectedLine = #line + 2
        withKnownIssue {
            tester.expectVisible(PickerScreen.self)
        } matching: { issue in
            issue.sourceLocation?.line == expectedLine && issue.sourceLocation?.fileName == "FailureLocationTests.swift"
        }
    }
}
