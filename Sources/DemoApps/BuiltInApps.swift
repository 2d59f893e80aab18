import FlowApp
import FlowKit
import Foundation

/// The apps `flowd --app NAME` can run.
public enum BuiltInApps {
    /// Every app by name, with what it shows (`flowd --list-apps`), the launcher first (the default).
    public static let all: [DaemonApp] = [
        DaemonApp(name: "launcher", summary: "the demo launcher: every demo app from one menu (the default)", make: launcher),
        DaemonApp(name: "tutorial", summary: "the onboarding tutorial in a stack; done ends the app", make: tutorial),
        DaemonApp(name: "deep-stack", summary: "a stack that grows on demand; finish unwinds it with one dismisser", make: deepStack),
        DaemonApp(name: "leave-in-place", summary: "a parent that leaves its sub-flow's screens in place", make: leaveInPlace),
        DaemonApp(name: "mirror", summary: "two tabs updated together, for slow-host tests", make: mirror),
        DaemonApp(name: "till", summary: "a till: the cashier's screen and the customer's display, one flow behind two displays", make: till),
        DaemonApp(name: "modal", summary: "a home screen that presents a sub-flow modally in its own stack", make: modal),
        DaemonApp(name: "bench-relay", summary: "flowbench: output of screen A updates screen B and back (two hosts)", make: benchRelay),
        DaemonApp(name: "bench-echo", summary: "flowbench: $FLOWD_BENCH_SCREENS screens echo-0... in tabs, each output updates its screen", make: benchEcho),
        DaemonApp(name: "bench-spawn", summary: "flowbench: a home screen that shows a spawned screen ($FLOWD_BENCH_SPAWN _spawned)", make: benchSpawn),
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
        // the student editor applies edits as they are made (back keeps them). Version 4: the card
        // screens' outputs are protobuf messages (a journal holds them as sent), no longer JSON.
        // Version 5: a student's editor is identified by the name as it is now (`linkID`), and a
        // directory link to the detail on top does not push it again: links replay differently.
        // FLOWD_DEMO_VERSION starts it as another version, to try an upgrade: the journal of the
        // version before does not replay; the place it was at opens again, with the flows' mementos (docs/demo.md).
        return App(name: "launcher", version: demoVersion(default: "5"), screens: screens, modules: allCardScreens.map { $0 as any ScreenModule.Type },
                   placer: windowRoot.withNavigationEmbedding()) { LauncherFlow() }
    }

    static func tutorial() -> App {
        App(name: "tutorial", modules: [TutorialScreen.self], placer: windowRoot.withNavigationEmbedding()) { OnboardingFlow() }
    }

    static func deepStack() -> App {
        App(name: "deep-stack", modules: [ItemScreen.self], placer: windowRoot.withNavigationEmbedding()) { DeepStackFlow() }
    }

    static func mirror() -> App {
        App(name: "mirror", modules: [ItemScreen.self, TutorialScreen.self], placer: windowRoot) { MirrorFlow() }
    }

    /// The app's version: FLOWD_DEMO_VERSION when set (to try an upgrade), else `default`.
    private static func demoVersion(default version: String) -> String {
        ProcessInfo.processInfo.environment["FLOWD_DEMO_VERSION"].flatMap { $0.isEmpty ? nil : $0 } ?? version
    }

    static func till() -> App {
        // FLOWD_DEMO_VERSION: as the launcher's, to try an upgrade with the customer's window open.
        App(name: "till", version: demoVersion(default: "1"), modules: [TillScreen.self, CustomerScreen.self, CustomerPayScreen.self], placer: windowRoot) { TillFlow() }
    }

    static func modal() -> App {
        App(name: "modal", modules: [ItemScreen.self], placer: windowRoot.withNavigationEmbedding()) { ModalFlow() }
    }

    static func leaveInPlace() -> App {
        App(name: "leave-in-place", modules: [ItemScreen.self, TutorialScreen.self],
            placer: windowRoot.withNavigationEmbedding()) { LeaveInPlaceFlow() }
    }

    static func benchRelay() -> App {
        App(name: "bench-relay", modules: [BenchRelayAScreen.self, BenchRelayBScreen.self],
            placer: windowRoot) { BenchRelayFlow() }
    }

    static func benchEcho() -> App {
        let count = BenchEchoFlow.screensFromEnvironment
        let modules = (0..<BenchEchoFlow.screenCount(count)).map(BenchEchoFlow.module)
        return App(name: "bench-echo", modules: modules, placer: windowRoot) { BenchEchoFlow(screens: count) }
    }

    /// The spawned screen runs `$FLOWD_BENCH_SPAWN _spawned` (attached if the variable is unset).
    static func benchSpawn() -> App {
        let executable = ProcessInfo.processInfo.environment["FLOWD_BENCH_SPAWN"]
        let spawned: ScreenFactory = executable.map { .spawn(executable: $0, arguments: ["_spawned"]) } ?? .attached
        return App(name: "bench-spawn", screens: [BenchSpawnedScreen.kind: spawned],
                   modules: [BenchHomeScreen.self, BenchSpawnedScreen.self],
                   placer: windowRoot) { BenchSpawnFlow() }
    }
}
