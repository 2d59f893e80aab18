import FlowKit
import FlowKitTesting
import FlowdTestSupport
import Foundation
import Testing


enum FuzzScreen: ScreenModule {
    static let kind = "fuzz"
    struct State: Codable, Equatable { var value: Int }
    enum Output: Codable, Equatable { case act(op: Int, arg: Int) }
}

/// Shared state of one random sequence.
final class Fuzz {
    var rng: SeededGenerator
    let tester: FlowTester
    var flows: [Weak] = []
    var deferred: [Dismisser] = []
    var log: [String] = []

    struct Weak { weak var object: AnyObject? }

    init(seed: UInt64, manualAcks: Bool) {
        rng = SeededGenerator(seed: seed)
        tester = FlowTester(acknowledgesAutomatically: !manualAcks)
    }

    func int(_ bound: Int) -> Int { Int.random(in: 0..<max(1, bound), using: &rng) }

    var liveFlowObjects: Int { flows.filter { $0.object != nil }.count }

    /// What a parent does with a finished child's dismisser.
    func decide(_ dismisser: Dismisser) {
        switch int(4) {
        case 0: dismisser.dismiss(animated: true)
        case 1: dismisser.dismiss(animated: false)
        case 2: dismisser.leave()
        default: deferred.append(dismisser)
        }
    }
}

/// A flow that acts on commands its screens send: push, present, start sub-flows in every placement,
/// emit, finish, terminate sub-flows, update.
final class FuzzFlow<Context: PlacedContext>: Flow {
    typealias RequiredContext = Context
    typealias Output = Int
    typealias Result = Int
    private let fuzz: Fuzz
    private var flow: FlowContext<FuzzFlow>?
    private var shown: [Screen<FuzzScreen>] = []

    init(_ fuzz: Fuzz) {
        self.fuzz = fuzz
        fuzz.flows.append(.init(object: self))
    }

    func start(_ flow: FlowContext<FuzzFlow>) {
        self.flow = flow
        handle(flow.show(FuzzScreen.self, .init(value: 0)))
    }

    private func handle(_ screen: Screen<FuzzScreen>) {
        guard screen.node != .none else { return }
        shown.append(screen)
        screen.onOutput { [weak self] output in
            guard case .act(let op, let arg) = output else { return }
            self?.act(op, arg)
        }
    }

    private var myScreens: [Screen<FuzzScreen>] {
        guard let flow else { return [] }
        return shown.filter { fuzz.tester.runtime.owner(of: $0.node) == flow.id }
    }

    private var myStack: NavigationStack? {
        guard let stack = flow?.contextIfPlaced as? NavigationStack,
              fuzz.tester.runtime.debugTree().nodes.contains(where: { $0.id == stack.node && $0.kind == .stack }) else { return nil }
        return stack
    }

    private func act(_ op: Int, _ arg: Int) {
        guard let flow, flow.isRunning else { return }
        let mine = myScreens
        let target = mine.isEmpty ? nil : mine[arg % mine.count]
        switch op {
        case 0:
            if let stack = myStack { handle(flow.show(FuzzScreen.self, .init(value: arg), .pushed(in: stack))) }
        case 1:
            if let target { handle(flow.show(FuzzScreen.self, .init(value: arg), .presented(on: target))) }
        case 2:
            if let stack = myStack { startChild(FuzzFlow<NavigationStack>(fuzz), .pushed(in: stack)) }
        case 3:
            if let target { startChild(FuzzFlow<NavigationStack>(fuzz), presented(on: target).withNavigationEmbedding()) }
        case 4:
            if let target { startChild(FuzzFlow<Presenter>(fuzz), .presented(on: target)) }
        case 5:
            if let target {
                let tabs = presented(on: target).withTabBarEmbedding(count: 2 + arg % 2)
                startChild(FuzzFlow<TabBar>(fuzz), tabs[0])
                startChild(FuzzFlow<NavigationStack>(fuzz), tabs[1].withNavigationEmbedding())
            }
        case 6:
            flow.emit(arg)
        case 7:
            flow.finish(arg)
        case 8:
            let children = flow.runningSubFlows
            if !children.isEmpty { flow.terminate(children[arg % children.count], animated: arg % 2 == 0) }
        case 9:
            target?.update(.init(value: arg))
        case 10:
            if let stack = myStack, arg % 3 == 0 { startChild(FuzzFlow<NavigationStack>(fuzz), .root(of: stack)) }
        default:
            break
        }
    }

    private func startChild<C: PlacedContext>(_ child: FuzzFlow<C>, _ placer: ScreenPlacer<C>) {
        guard let flow else { return }
        let fuzz = fuzz
        flow.start(child, placer) { _ in } onFinish: { _, dismisser in fuzz.decide(dismisser) } onEnd: { _ in }
    }
}

@Suite("Randomized sequences keep the model sound")
struct RandomizedTests {
    /// 3000 seeded sequences of 50 steps (half with dismissals acknowledged later, in random order);
    /// a failure names its seed and the steps that led there.
    @Test(arguments: [false, true])
    func randomSequences(manualAcks: Bool) throws {
        for seed in UInt64(0)..<1500 {
            try run(seed: seed, steps: 50, manualAcks: manualAcks)
        }
    }

    private func run(seed: UInt64, steps: Int, manualAcks: Bool) throws {
        let fuzz = Fuzz(seed: seed, manualAcks: manualAcks)
        let tester = fuzz.tester
        let runtime = tester.runtime
        for step in 0..<steps {
            let action = fuzz.int(100)
            let screens = tester.transport.screens.keys.sorted()
            let visible = runtime.visibleScreen
            switch action {
            case 0..<8:
                if runtime.liveFlowCount == 0 || fuzz.int(4) == 0 {
                    if fuzz.int(2) == 0 {
                        tester.start(FuzzFlow<Presenter>(fuzz), windowRoot)
                    } else {
                        tester.start(FuzzFlow<NavigationStack>(fuzz), windowRoot.withNavigationEmbedding())
                    }
                    fuzz.log.append("start root")
                } else if let visible {
                    tester.start(FuzzFlow<Presenter>(fuzz), .presented(on: Presenter(node: visible)))  // package access: tests may name a node
                    fuzz.log.append("start root on \(visible)")
                }
            case 8..<62:
                guard !screens.isEmpty else { continue }
                let screen = screens[fuzz.int(screens.count)]
                let op = fuzz.int(11), arg = fuzz.int(1000)
                fuzz.log.append("act \(op) \(arg) from \(screen)")
                try tester.send(.act(op: op, arg: arg), from: screen, as: FuzzScreen.self)
            case 62..<72:
                fuzz.log.append("back")
                try? tester.back()
            case 72..<75:
                fuzz.log.append("back cancelled")
                if let visible {
                    try? runtime.receiveUserNavigation(.back(.begin), from: visible)
                    try? runtime.receiveUserNavigation(.back(.cancel), from: visible)
                }
            case 75..<80:
                let tab = fuzz.int(3)
                fuzz.log.append("select tab \(tab)")
                if let screen = screens.isEmpty ? nil : screens[fuzz.int(screens.count)] { try? tester.selectTab(tab, from: screen) }
            case 80..<85:
                fuzz.log.append("close modal")
                try? tester.closeModal()
            case 85..<88:
                guard !screens.isEmpty else { continue }
                let screen = screens[fuzz.int(screens.count)]
                fuzz.log.append("lose \(screen)")
                tester.loseScreen(screen)
            case 88..<92:
                let flows = runtime.runningFlows
                guard !flows.isEmpty else { continue }
                let flow = flows[fuzz.int(flows.count)]
                fuzz.log.append("terminate \(flow)")
                try runtime.terminate(flow: flow, animated: fuzz.int(2) == 0)
            case 92..<96:
                guard !fuzz.deferred.isEmpty else { continue }
                let dismisser = fuzz.deferred.remove(at: fuzz.int(fuzz.deferred.count))
                fuzz.log.append("deferred dismiss")
                if fuzz.int(3) == 0 { dismisser.leave() } else { dismisser.dismiss(animated: fuzz.int(2) == 0) }
            default:
                let pending = tester.transport.unacknowledged
                guard !pending.isEmpty else { continue }
                let screen = pending[fuzz.int(pending.count)]
                fuzz.log.append("ack \(screen)")
                tester.transport.acknowledge(screen, [.acknowledged, .timedOut][fuzz.int(2)])
            }
            let problems = check(fuzz)
            if !problems.isEmpty {
                Issue.record("seed \(seed) step \(step) (manual acks \(manualAcks)):\n\(problems.joined(separator: "\n"))\nlog: \(fuzz.log.joined(separator: "; "))")
                return
            }
        }
        runtime.terminateAll()
        tester.transport.acknowledgeAll()
        fuzz.deferred.removeAll()
        if runtime.liveFlowCount != 0 || runtime.liveScreenCount != 0 || runtime.pendingDismissals != 0 || fuzz.liveFlowObjects != 0 || !tester.transport.screens.isEmpty {
            Issue.record("seed \(seed): left \(runtime.liveFlowCount) flows, \(runtime.liveScreenCount) screens, \(runtime.pendingDismissals) dismissals, \(fuzz.liveFlowObjects) flow objects")
        }
    }

    private func check(_ fuzz: Fuzz) -> [String] {
        let runtime = fuzz.tester.runtime
        var problems = runtime.invariantViolations()
        let model = Set(runtime.debugTree().nodes.filter { $0.kind == .screen }.map(\.id))
        let fake = Set(fuzz.tester.transport.screens.keys)
        if model != fake { problems.append("fake screens \(fake.sorted()) != model screens \(model.sorted())") }
        if fuzz.liveFlowObjects != runtime.liveFlowCount {
            problems.append("\(fuzz.liveFlowObjects) flow objects alive for \(runtime.liveFlowCount) running flows (leak)")
        }
        if runtime.pendingDismissals != fuzz.tester.transport.unacknowledged.count {
            problems.append("\(runtime.pendingDismissals) pending dismissals, transport holds \(fuzz.tester.transport.unacknowledged.count)")
        }
        for screen in model {
            guard let placement = runtime.placement(of: screen), let told = fuzz.tester.transport.screens[screen]?.placement else { continue }
            if placement != told { problems.append("screen \(screen) was told \(told), is at \(placement)") }
        }
        return problems
    }
}

