import FlowKit
import FlowKitTesting
import Testing

@Suite("TransferWise examples: modal result, sub-flow error mapping, termination")
struct PaymentTests {
    @Test func singleScreenModalFlowWithAResult() throws {
        let tester = FlowTester()
        let shell = ShellFlow<Presenter>()
        tester.start(shell, windowRoot)
        let home = try #require(shell.screen)
        let picker = tester.start(PickerFlow(items: ["EUR", "GBP"]), .presented(on: home))
        let screen = try #require(tester.expectVisible(PickerScreen.self))
        #expect(tester.placement(of: screen)?.path == [.window, .modal(presenter: home.id)])
        tester.send(.picked(1), from: PickerScreen.self)
        tester.expectFinished(picker, with: .picked("GBP"), dismissing: [screen])
        tester.expectVisible(PlainScreen.self)
        tester.expectSound()
    }

    private func startPayment(_ tester: FlowTester) throws -> (FlowRecorder<PaymentFlow>, PaymentFlow, ScreenID) {
        let shell = ShellFlow<Presenter>()
        tester.start(shell, windowRoot)
        let flow = PaymentFlow()
        let recorder = tester.start(flow, .presented(on: try #require(shell.screen)))
        let payment = try #require(tester.expectVisible(PaymentScreen.self))
        return (recorder, flow, payment)
    }

    @Test func subFlowErrorIsMappedToCanceled() throws {
        let tester = FlowTester()
        let (recorder, _, payment) = try startPayment(tester)
        let verification = tester.expectPush(when: payment, of: PaymentScreen.self, sends: .pay, pushes: VerificationScreen.self)
        #expect(verification != nil)
        #expect(tester.runtime.liveFlowCount == 3)
        tester.send(.code("0000"), from: VerificationScreen.self)
        #expect(tester.runtime.liveFlowCount == 1, "verification and payment were released")
        tester.expectFinished(recorder, with: .canceled(reason: "wrong code 0000"), dismissing: [payment])
        #expect(tester.transport.dismissed == [verification, payment].compactMap { $0 })
        tester.expectSound()
    }

    @Test func successPresentsConfirmationDismissesItAndCompletes() throws {
        let tester = FlowTester()
        let (recorder, _, payment) = try startPayment(tester)
        tester.send(.pay, from: PaymentScreen.self)
        tester.send(.code("1234"), from: VerificationScreen.self)
        #expect(tester.state(of: payment, as: PaymentScreen.self)?.status == "paid")
        let confirmation = try #require(tester.expectVisible(ConfirmationScreen.self))
        #expect(tester.placement(of: confirmation)?.path.last == .modal(presenter: payment))
        #expect(recorder.isOver == false)
        tester.send(.ok, from: ConfirmationScreen.self)
        #expect(!tester.transport.screens.keys.contains(confirmation))
        tester.expectFinished(recorder, with: .completed(success: true), dismissing: [payment])
        tester.expectSound()
    }

    @Test func confirmationWaitsForTheAcknowledgementBeforeCompleting() throws {
        let tester = FlowTester(acknowledgesAutomatically: false)
        let (recorder, _, _) = try startPayment(tester)
        tester.send(.pay, from: PaymentScreen.self)
        tester.send(.code("1234"), from: VerificationScreen.self)
        tester.transport.acknowledgeAll()
        let confirmation = try #require(tester.screen(ConfirmationScreen.self))
        tester.send(.ok, from: ConfirmationScreen.self)
        #expect(tester.transport.unacknowledged == [confirmation])
        #expect(recorder.result == nil, "finishing waits until the confirmation is gone")
        tester.transport.acknowledge(confirmation)
        #expect(recorder.result == .completed(success: true))
    }

    @Test func terminatingFromOutsideWhileTheSubFlowRuns() throws {
        let tester = FlowTester()
        let (recorder, flow, payment) = try startPayment(tester)
        tester.send(.pay, from: PaymentScreen.self)
        let verification = try #require(tester.screen(VerificationScreen.self))
        let subFlow = try #require(flow.verification)
        #expect(tester.runtime.subFlows(of: recorder.id) == [subFlow])
        try tester.runtime.terminate(flow: recorder.id)
        tester.expectEnded(recorder, .terminated)
        #expect(tester.transport.dismissed == [verification, payment], "the sub-flow's screens go first")
        #expect(tester.transport.host.unwound[.flow(recorder.id)]?.screens == [verification, payment])
        #expect(tester.runtime.liveFlowCount == 1)
        tester.expectVisible(PlainScreen.self)
        tester.expectSound()
    }
}
