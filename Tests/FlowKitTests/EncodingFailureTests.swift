import FlowKit
import FlowKitTesting
import Foundation
import Testing

/// A screen whose state refuses to encode when told to.
enum FragileScreen: ScreenModule {
    static let kind = "fragile"
    struct State: Codable {
        var breaks: Bool
        struct Refused: Error {}
        func encode(to encoder: any Encoder) throws {
            if breaks { throw Refused() }
            var container = encoder.singleValueContainer()
            try container.encode(breaks)
        }
        init(breaks: Bool) { self.breaks = breaks }
        init(from decoder: any Decoder) throws { breaks = try decoder.singleValueContainer().decode(Bool.self) }
    }
    enum Output: Codable { case tap }
}

/// Shows a fragile screen; its first output updates it with a state that does not encode.
final class FragileFlow: Flow {
    typealias RequiredContext = Presenter
    let breaksAtOnce: Bool
    init(breaksAtOnce: Bool) { self.breaksAtOnce = breaksAtOnce }

    func start(_ flow: FlowContext<FragileFlow>) {
        let screen = flow.show(FragileScreen.self, .init(breaks: breaksAtOnce))
        screen.onOutput { _ in screen.update(.init(breaks: true)) }
    }
}

/// `show` and `update` treat a state that does not encode alike: the flow fails with a clear error and
/// nothing is sent (never `{}`, never swallowed).
@Suite struct EncodingFailureTests {
    @Test func aStateThatDoesNotEncodeFailsTheFlowInShow() throws {
        let tester = FlowTester()
        let recorder = tester.start(FragileFlow(breaksAtOnce: true), windowRoot)
        guard case .failed(let error)? = recorder.ending else {
            Issue.record("expected the flow to fail, it \(String(describing: recorder.ending))")
            return
        }
        #expect(error.code == .stateEncodingFailed)
        #expect(error.message.contains("fragile"), "\(error.message)")
        #expect(tester.transport.events.isEmpty, "nothing was placed")
        tester.expectEmpty()
    }

    @Test func aStateThatDoesNotEncodeFailsTheFlowInUpdate() throws {
        let tester = FlowTester()
        let recorder = tester.start(FragileFlow(breaksAtOnce: false), windowRoot)
        let screen = try #require(tester.screen(FragileScreen.self))
        try tester.send(.tap, from: screen, as: FragileScreen.self)
        guard case .failed(let error)? = recorder.ending else {
            Issue.record("expected the flow to fail, it \(String(describing: recorder.ending))")
            return
        }
        #expect(error.code == .stateEncodingFailed)
        #expect(!tester.transport.events.contains { if case .updated = $0 { true } else { false } }, "no update was sent")
        #expect(tester.transport.dismissed == [screen], "the failed flow's screen is unwound")
        tester.expectEmpty()
    }
}

/// Inputs as data: `handle(_:)` applies one and returns exactly what it caused, and a refused input
/// changes nothing.
@Suite struct FlowInputTests {
    @Test func anInputAsDataReturnsTheEffectsItCaused() throws {
        let runtime = FlowRuntime()
        let host = LocalScreenHost(runtime: runtime)
        runtime.start(FragileFlow(breaksAtOnce: false), windowRoot) { _ in }
        host.settle()
        let screen = try #require(runtime.visibleScreen)
        let effects = try runtime.handle(.output(screen, payload: Data(#"{"tap":{}}"#.utf8)))
        // The update fails to encode: the flow fails, so its screen is dismissed and it ends.
        #expect(effects.contains { if case .command(.dismiss(screen, _, .flowFinished)) = $0 { true } else { false } }, "\(effects)")
        #expect(effects.contains { if case .flow(let event) = $0 { event.kind == .ended } else { false } })
        #expect(!runtime.hasEffects, "handle took everything")
        #expect(throws: FlowKitError.self) { try runtime.handle(.terminate(FlowID(rawValue: 99), animated: false)) }
        #expect(!runtime.hasEffects)
    }
}
