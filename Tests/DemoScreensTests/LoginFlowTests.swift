import DemoApps
import FlowKit
import FlowKitTesting
import Testing

/// The demo's login checks the name with asynchronous work and says so with a timer when the check
/// is slow; FlowKitTesting answers both by hand.
@Suite("The demo's login")
struct LoginFlowTests {
    static func checking(_ name: String) -> (FlowTester, FlowRecorder<LoginFlow>) {
        let tester = FlowTester()
        let recorder = tester.start(LoginFlow(), windowRoot.withNavigationEmbedding())
        tester.send(.didEnterText(text: name), from: LoginScreen.self)
        tester.send(.didPressButton(index: 0), from: LoginScreen.self)
        return (tester, recorder)
    }

    @Test func logInRunsTheCheckAndAnAcceptedNamePushesTheSuccessScreen() async throws {
        let (tester, recorder) = Self.checking("ann")
        let form = try #require(tester.screen(LoginScreen.self))
        #expect(tester.state(LoginScreen.self)?.body == "Checking ann…")
        #expect(tester.work.count == 1 && tester.timers.count == 1, "\(tester.outstandingRequests)")
        #expect(tester.outstandingRequests.first { $0.isTimer }.map { "\($0)" }?.hasSuffix("(\(LoginFlow.slowCheckMilliseconds) ms)") == true)
        tester.send(.didPressButton(index: 0), from: LoginScreen.self)
        #expect(tester.work.count == 1, "a second press waits for the check")
        try await tester.perform(tester.work[0])
        let success = try #require(tester.screen(LoginSuccessScreen.self))
        #expect(tester.state(LoginSuccessScreen.self)?.title == "Welcome, ann")
        #expect(tester.outstandingRequests.isEmpty, "the slow-check timer was cancelled")
        tester.send(.didPressButton(index: 0), from: LoginSuccessScreen.self)
        tester.expectFinished(recorder, with: .loggedIn("ann"), dismissing: [form, success])
    }

    @Test func aSlowCheckSaysSoAndARefusalStaysOnTheForm() throws {
        let (tester, _) = Self.checking("root")
        try tester.fireTimer(tester.timers[0])
        #expect(tester.state(LoginScreen.self)?.body == "Still checking root…")
        try tester.complete(tester.work[0], with: LoginFlow.Verdict.refused(reason: "root may not log in here."))
        #expect(tester.state(LoginScreen.self)?.body == "root may not log in here.")
        #expect(tester.screens(LoginSuccessScreen.self).isEmpty)
        #expect(tester.outstandingRequests.isEmpty)
    }

    @Test func aFailedCheckCanBeTriedAgain() throws {
        let (tester, _) = Self.checking("ann")
        try tester.fail(tester.work[0], message: "the identity service is down")
        #expect(tester.state(LoginScreen.self)?.body == "The check failed (the identity service is down); try again.")
        #expect(tester.outstandingRequests.isEmpty)
        tester.send(.didPressButton(index: 0), from: LoginScreen.self)
        #expect(tester.work.count == 1, "a new check")
        try tester.complete(tester.work[0], with: LoginFlow.Verdict.accepted)
        #expect(tester.screens(LoginSuccessScreen.self).count == 1)
    }

    @Test func cancellingWhileCheckingDropsTheCheck() throws {
        let (tester, recorder) = Self.checking("ann")
        let form = try #require(tester.screen(LoginScreen.self))
        tester.send(.didPressButton(index: 1), from: LoginScreen.self)
        #expect(tester.outstandingRequests.isEmpty, "the check and its timer ended with the flow")
        tester.expectFinished(recorder, with: .cancelled, dismissing: [form])
    }
}
