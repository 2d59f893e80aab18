import FlowKit
import FlowKitTesting
import Foundation
import Synchronization
import Testing

/// A flow that asks for outside data: "timer N" starts a timer of N ms that pushes a screen titled
/// "fired N"; "work X" runs work that upper-cases X (or throws for "fail"), shown as the home screen's
/// title; "cancel" cancels the newest request; "sub" starts a sub-flow that asks for a timer at once.
final class RequestingFlow: Flow {
    typealias RequiredContext = NavigationStack
    typealias Output = String
    /// How many times any work closure ran (in any runtime).
    static let runs = Mutex(0)

    struct Failure: Error, CustomStringConvertible { var description: String { "the service is down" } }

    var requested: [RequestID] = []
    var subFlow: FlowID?
    var results: [String] = []

    func start(_ flow: FlowContext<RequestingFlow>) {
        let home = flow.show(PlainScreen.self, .init(title: "home"))
        home.onOutput { [unowned self] output in
            guard case .tap(let what) = output else { return }
            let words = what.split(separator: " ").map(String.init)
            switch words.first {
            case "timer":
                let milliseconds = UInt64(words[1]) ?? 0
                requested.append(flow.after(milliseconds: milliseconds) {
                    flow.show(PlainScreen.self, .init(title: "fired \(milliseconds)"), .pushed(in: flow.context))
                })
            case "work":
                let text = words[1]
                requested.append(flow.run {
                    RequestingFlow.runs.withLock { $0 += 1 }
                    if text == "fail" { throw Failure() }
                    return text.uppercased()
                } then: { [unowned self] (result: Swift.Result<String, ExternalWorkError>) in
                    switch result {
                    case .success(let value): results.append(value)
                    case .failure(let error): results.append("failed: \(error.message)")
                    }
                    home.update(.init(title: results.joined(separator: ",")))
                })
            case "cancel":
                if let last = requested.popLast() { flow.cancel(last) }
            case "sub":
                subFlow = flow.start(TimerChildFlow(), .pushed(in: flow.context)) { _, dismisser in
                    dismisser.dismiss(animated: false)
                } onEnd: { _ in }
            case "end-sub":
                if let subFlow { flow.terminate(subFlow) }
            case "finish":
                flow.finish(())
            default:
                flow.emit(what)
            }
        }
    }
}

/// A sub-flow that asks for a long timer and a piece of work as soon as it starts.
final class TimerChildFlow: Flow {
    typealias RequiredContext = NavigationStack
    typealias Output = Never
    typealias Result = Void

    func start(_ flow: FlowContext<TimerChildFlow>) {
        flow.show(PlainScreen.self, .init(title: "child"))
        flow.after(milliseconds: 60_000) { flow.finish(()) }
        flow.run { 42 } then: { _ in }
    }
}

@Suite("Requests for outside data")
struct RequestTests {
    static func tap(_ what: String, _ tester: FlowTester) throws {
        try tester.send(.tap(what), from: tester.screens(PlainScreen.self)[0], as: PlainScreen.self)
    }

    static func start() -> (FlowTester, RequestingFlow) {
        let tester = FlowTester()
        let flow = RequestingFlow()
        tester.start(flow, windowRoot.withNavigationEmbedding())
        return (tester, flow)
    }

    @Test func requestsAreAnnouncedAsEffectsWithIdsInOrder() throws {
        let runtime = FlowRuntime()
        let flow = RequestingFlow()
        let root = runtime.start(flow, windowRoot.withNavigationEmbedding()) { _ in }
        let home = try #require(runtime.debugTree().nodes.first { $0.kind == .screen }?.id)
        _ = runtime.takeEffects()
        for what in ["timer 250", "work x", "timer 0"] {
            try runtime.receiveOutput(screen: home, payload: JSONEncoder().encode(PlainScreen.Output.tap(what)))
        }
        let requests = runtime.takeEffects().compactMap { effect -> ExternalRequest? in
            if case .request(let request) = effect { request } else { nil }
        }
        #expect(requests.map(\.id.rawValue) == [1, 2, 3])
        #expect(requests.allSatisfy { $0.owner == root })
        #expect(requests.map(\.description) == ["timer request#1 of \(root) (250 ms)", "work request#2 of \(root)", "timer request#3 of \(root) (0 ms)"])
        #expect(flow.requested == requests.map(\.id))
        #expect(runtime.outstandingRequests.map(\.id) == requests.map(\.id))
    }

    @Test func aFiredTimerRunsItsHandlerOnceAndIsDone() throws {
        let (tester, _) = Self.start()
        try Self.tap("timer 2000", tester)
        let timer = try #require(tester.timers.first)
        #expect(tester.screens(PlainScreen.self).count == 1, "nothing happens before the timer fires")
        try tester.fireTimer(timer)
        #expect(tester.state(PlainScreen.self)?.title == "fired 2000")
        #expect(tester.outstandingRequests.isEmpty)
        #expect(throws: FlowKitError.self, "a second firing is refused") { try tester.fireTimer(timer) }
        tester.expectSound()
    }

    @Test func workResultsArriveTypedAndFailuresAsText() async throws {
        let (tester, flow) = Self.start()
        try Self.tap("work abc", tester)
        try Self.tap("work fail", tester)
        try Self.tap("work def", tester)
        let work = tester.work
        #expect(work.count == 3)
        try tester.complete(work[2], with: "DEF")
        try await tester.perform(work[1])
        try await tester.perform(work[0])
        #expect(flow.results == ["DEF", "failed: the service is down", "ABC"])
        #expect(tester.outstandingRequests.isEmpty)
    }

    @Test func aResultThatDoesNotDecodeReachesTheFlowAsAFailure() throws {
        let (tester, flow) = Self.start()
        try Self.tap("work abc", tester)
        try tester.complete(tester.work[0], with: 17)
        #expect(flow.results.count == 1)
        #expect(flow.results[0].hasPrefix("failed: the result did not decode as String"), "\(flow.results)")
    }

    @Test func answersForUnknownCancelledOrMismatchedRequestsAreRefusedAndChangeNothing() throws {
        let (tester, flow) = Self.start()
        try Self.tap("timer 10", tester)
        try Self.tap("work abc", tester)
        try Self.tap("timer 20", tester)
        try Self.tap("cancel", tester)
        let (timer, work, cancelled) = (flow.requested[0], flow.requested[1], RequestID(rawValue: 3))
        let before = tester.runtime.debugTree()
        let refused: [FlowInput] = [
            .timerFired(RequestID(rawValue: 99)), .workSucceeded(RequestID(rawValue: 99), payload: Data("\"X\"".utf8)),
            .workFailed(RequestID(rawValue: 99), message: "no"), .timerStarted(RequestID(rawValue: 99), deadline: 5),
            .timerFired(cancelled), .timerFired(work), .workSucceeded(timer, payload: Data("\"X\"".utf8)), .workFailed(timer, message: "no"),
            .timerStarted(work, deadline: 5), .timerFired(.none),
        ]
        for input in refused {
            #expect(throws: FlowKitError.self, "\(input)") { try tester.runtime.apply(input) }
            do { try tester.runtime.apply(input) } catch { #expect(error.code == .unknownRequest) }
        }
        #expect(tester.runtime.takeEffects().isEmpty)
        #expect(tester.runtime.debugTree() == before)
        #expect(tester.outstandingRequests.map(\.id) == [timer, work], "the refusals left both outstanding")
        #expect(flow.results.isEmpty)
        tester.expectSound()
    }

    @Test func cancellingEmitsACancelEffectAndTheAnswerIsRefused() throws {
        let runtime = FlowRuntime()
        let flow = RequestingFlow()
        runtime.start(flow, windowRoot.withNavigationEmbedding()) { _ in }
        let home = try #require(runtime.debugTree().nodes.first { $0.kind == .screen }?.id)
        try runtime.receiveOutput(screen: home, payload: JSONEncoder().encode(PlainScreen.Output.tap("timer 5")))
        _ = runtime.takeEffects()
        try runtime.receiveOutput(screen: home, payload: JSONEncoder().encode(PlainScreen.Output.tap("cancel")))
        let effects = runtime.takeEffects()
        #expect(effects.count == 1)
        guard case .cancelRequest(let id)? = effects.first else { Issue.record("expected a cancel, got \(effects)"); return }
        #expect(id == RequestID(rawValue: 1))
        #expect(throws: FlowKitError.self) { try runtime.apply(.timerFired(id)) }
        #expect(runtime.outstandingRequests.isEmpty)
    }

    @Test func aFlowThatEndsCancelsItsRequestsOldestFirst() throws {
        let (tester, flow) = Self.start()
        try Self.tap("timer 5", tester)
        try Self.tap("sub", tester)
        let child = try #require(flow.subFlow)
        let childRequests = tester.outstandingRequests.filter { $0.owner == child }.map(\.id)
        #expect(childRequests == [RequestID(rawValue: 2), RequestID(rawValue: 3)])
        try Self.tap("end-sub", tester)
        #expect(tester.outstandingRequests.map(\.id) == [RequestID(rawValue: 1)], "only the parent's timer is left")
        tester.expectSound()
        for id in childRequests {
            #expect(throws: FlowKitError.self) { try tester.runtime.apply(.timerFired(id)) }
        }

        // The effects themselves, on a runtime driven by hand.
        let runtime = FlowRuntime()
        let root = runtime.start(TimerChildFlow(), windowRoot.withNavigationEmbedding()) { _ in }
        _ = runtime.takeEffects()
        try runtime.terminate(flow: root)
        let cancels = runtime.takeEffects().compactMap { effect -> RequestID? in
            if case .cancelRequest(let id) = effect { id } else { nil }
        }
        #expect(cancels == [RequestID(rawValue: 1), RequestID(rawValue: 2)])
        #expect(runtime.outstandingRequests.isEmpty)
    }

    @Test func aFlowThatFinishesCancelsItsRequestsToo() throws {
        let (tester, _) = Self.start()
        try Self.tap("timer 5", tester)
        try Self.tap("finish", tester)
        #expect(tester.outstandingRequests.isEmpty)
        #expect(tester.runtime.liveFlowCount == 0)
    }

    @Test func anEndedFlowAsksForNothing() throws {
        let runtime = FlowRuntime()
        final class Late: Flow {
            typealias RequiredContext = NavigationStack
            typealias Output = Never
            var context: FlowContext<Late>?
            func start(_ flow: FlowContext<Late>) {
                context = flow
                flow.show(PlainScreen.self, .init(title: "late"))
            }
        }
        let late = Late()
        let id = runtime.start(late, windowRoot.withNavigationEmbedding()) { _ in }
        try runtime.terminate(flow: id)
        _ = runtime.takeEffects()
        let context = try #require(late.context)
        let timer = context.after(milliseconds: 1) {}
        let work = context.run({ 1 }, then: { _ in })
        #expect(timer == .none && work == .none)
        #expect(!runtime.hasEffects)
        #expect(runtime.outstandingRequests.isEmpty)
    }

    @Test func aTimersStartIsKeptWithTheRequestAndTheFlowDoesNotHearIt() throws {
        let (tester, flow) = Self.start()
        try Self.tap("timer 1000", tester)
        try tester.runtime.apply(.timerStarted(flow.requested[0], deadline: 1_700_000_001_000))
        #expect(tester.outstandingRequests.first?.deadline == 1_700_000_001_000)
        #expect(!tester.runtime.hasEffects, "the flow does not hear it")
        #expect(tester.screens(PlainScreen.self).count == 1)
    }

    /// The same inputs, fed to a new runtime, rebuild the same tree, the same requests with the same
    /// ids and the same effects: what a journal's replay relies on.
    @Test func replayingTheSameInputsRebuildsTheSameTreeAndRequests() throws {
        let probe = FlowRuntime()
        probe.start(RequestingFlow(), windowRoot.withNavigationEmbedding()) { _ in }
        let home = try #require(probe.debugTree().nodes.first { $0.kind == .screen }?.id)
        func tap(_ what: String) throws -> FlowInput { .output(home, payload: try JSONEncoder().encode(PlainScreen.Output.tap(what))) }
        let inputs: [FlowInput] = [
            try tap("timer 100"), try tap("work abc"), try tap("timer 50"), .timerStarted(RequestID(rawValue: 1), deadline: 77),
            .timerFired(RequestID(rawValue: 3)), .workSucceeded(RequestID(rawValue: 2), payload: Data("\"ABC\"".utf8)),
            try tap("sub"), try tap("work fail"), .workFailed(RequestID(rawValue: 6), message: "the service is down"),
            try tap("end-sub"), try tap("timer 7"),
        ]
        func run() throws -> (DebugTree, [String], [UInt64], [UInt64?], [String]) {
            let runtime = FlowRuntime()
            let flow = RequestingFlow()
            runtime.start(flow, windowRoot.withNavigationEmbedding()) { _ in }
            var effects: [String] = []
            for input in inputs {
                try runtime.apply(input)
                effects += runtime.takeEffects().map { effect in
                    switch effect {
                    case .command(let command): "\(command)"
                    case .flow(let event): "\(event)"
                    case .request(let request): "\(request)"
                    case .cancelRequest(let id): "cancel \(id)"
                    case .unwound(let unwinding, let report): "unwound \(unwinding) \(report.screens)"
                    case .root(let outcome): "root \(outcome)"
                    }
                }
            }
            let outstanding = runtime.outstandingRequests
            return (runtime.debugTree(), flow.results, outstanding.map(\.id.rawValue), outstanding.map(\.deadline), effects)
        }
        let first = try run()
        let second = try run()
        #expect(first.0 == second.0)
        #expect(first.1 == ["ABC", "failed: the service is down"])
        #expect(first.1 == second.1)
        #expect(first.2 == [1, 7] && first.2 == second.2)
        #expect(first.3 == [77, nil] && first.3 == second.3)
        #expect(first.4 == second.4)
        #expect(first.4.contains("cancel request#4") && first.4.contains("cancel request#5"), "the sub-flow's requests were cancelled")
    }

    @Test func theRuntimeEncodesAWorkResultIntoItsInput() async throws {
        let runtime = FlowRuntime()
        let flow = RequestingFlow()
        runtime.start(flow, windowRoot.withNavigationEmbedding()) { _ in }
        let home = try #require(runtime.debugTree().nodes.first { $0.kind == .screen }?.id)
        try runtime.receiveOutput(screen: home, payload: JSONEncoder().encode(PlainScreen.Output.tap("work hello")))
        try runtime.receiveOutput(screen: home, payload: JSONEncoder().encode(PlainScreen.Output.tap("work fail")))
        let work = runtime.takeEffects().compactMap { effect -> ExternalWork? in
            if case .request(let request) = effect, case .work(let work) = request.kind { work } else { nil }
        }
        try #require(work.count == 2)
        let results = [await work[0].run(), await work[1].run()]
        #expect(results.map(\.succeeded) == [true, false])
        #expect(runtime.input(for: results[0]) == .workSucceeded(work[0].request, payload: Data("\"HELLO\"".utf8)))
        #expect(runtime.input(for: results[1]) == .workFailed(work[1].request, message: "the service is down"))
    }
}
