import FlowApp
import FlowKit
import Foundation

/// The apps `flowd --app NAME` can run.
public enum BuiltInApps {
    /// Every app by name, with what it shows.
    public static let all: [(name: String, summary: String, make: @Sendable () -> App)] = [
        ("launcher", "the demo launcher: every demo app from one menu (the default)", launcher),
        ("tutorial", "the onboarding tutorial in a stack; done ends the app", tutorial),
        ("deep-stack", "a stack that grows on demand; finish unwinds it with one dismisser", deepStack),
        ("leave-in-place", "a parent that leaves its sub-flow's screens in place", leaveInPlace),
        ("mirror", "two tabs updated together, for slow-host tests", mirror),
        ("modal", "a home screen that presents a sub-flow modally in its own stack", modal),
        ("bench-relay", "flowbench: output of screen A updates screen B and back (two hosts)", benchRelay),
        ("bench-echo", "flowbench: $FLOWD_BENCH_SCREENS screens echo-0... in tabs, each output updates its screen", benchEcho),
        ("bench-spawn", "flowbench: a home screen that shows a spawned screen ($FLOWD_BENCH_SPAWN _spawned)", benchSpawn),
    ]

    /// The app called `name`.
    public static func named(_ name: String) -> App? {
        all.first { $0.name == name }?.make()
    }

    /// The screen kinds the built-in apps use.
    public static var kinds: [String] { allCardScreens.map { $0.kind } }

    /// Every kind as an attached screen (the demo's terminal host provides them all).
    static var attachedKinds: [String: ScreenFactory] {
        Dictionary(uniqueKeysWithValues: kinds.map { ($0, ScreenFactory.attached) })
    }

    /// Every kind attached, except the login screens: spawned in Python when
    /// it can run them (`PythonScreens`), else attached too, with a notice.
    /// The probe (`python3 ... --check`, ~0.1 s) runs on a background thread so
    /// that it does not delay the daemon's start-up.
    static func launcher() -> App {
        var screens = attachedKinds
        let python = ScreenFactory.deferred(DeferredScreenFactory {
            if case .spawn(let factory) = PythonScreens.decision { return factory.restarting(.standard) }
            return .attached
        })
        for kind in PythonScreens.kinds { screens[kind] = python }
        // Version 2: the login checks the name with asynchronous work (a journaled request) before it
        // pushes the success screen; a version-1 journal would replay a login without it. Version 3:
        // the student editor applies edits as they are made (back keeps them).
        return App(name: "launcher", version: "3", screens: screens, placer: windowRoot.withNavigationEmbedding()) { LauncherFlow() }
    }

    static func tutorial() -> App {
        App(name: "tutorial", screens: [TutorialScreen.kind: .attached], placer: windowRoot.withNavigationEmbedding()) { OnboardingFlow() }
    }

    static func deepStack() -> App {
        App(name: "deep-stack", screens: [ItemScreen.kind: .attached], placer: windowRoot.withNavigationEmbedding()) { DeepStackFlow() }
    }

    static func mirror() -> App {
        App(name: "mirror", screens: [ItemScreen.kind: .attached, TutorialScreen.kind: .attached], placer: windowRoot) { MirrorFlow() }
    }

    static func modal() -> App {
        App(name: "modal", screens: [ItemScreen.kind: .attached], placer: windowRoot.withNavigationEmbedding()) { ModalFlow() }
    }

    static func leaveInPlace() -> App {
        App(name: "leave-in-place", screens: [ItemScreen.kind: .attached, TutorialScreen.kind: .attached],
            placer: windowRoot.withNavigationEmbedding()) { LeaveInPlaceFlow() }
    }

    static func benchRelay() -> App {
        App(name: "bench-relay", screens: [BenchRelayAScreen.kind: .attached, BenchRelayBScreen.kind: .attached],
            placer: windowRoot) { BenchRelayFlow() }
    }

    static func benchEcho() -> App {
        let count = BenchEchoFlow.screensFromEnvironment
        let screens = Dictionary(uniqueKeysWithValues: (0..<max(1, min(count, 10_000))).map { (BenchEchoFlow.kind($0), ScreenFactory.attached) })
        return App(name: "bench-echo", screens: screens, placer: windowRoot) { BenchEchoFlow(screens: count) }
    }

    /// The spawned screen runs `$FLOWD_BENCH_SPAWN _spawned` (attached if the variable is unset).
    static func benchSpawn() -> App {
        let executable = ProcessInfo.processInfo.environment["FLOWD_BENCH_SPAWN"]
        let spawned: ScreenFactory = executable.map { .spawn(executable: $0, arguments: ["_spawned"]) } ?? .attached
        return App(name: "bench-spawn", screens: [BenchHomeScreen.kind: .attached, BenchSpawnedScreen.kind: spawned],
                   placer: windowRoot) { BenchSpawnFlow() }
    }
}
