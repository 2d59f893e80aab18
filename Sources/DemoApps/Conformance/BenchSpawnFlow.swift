import FlowKit

/// The flowd side of flowbench's spawn start-up row: a home screen (attached)
/// in tab 0; its button 0 shows a spawned screen in tab 1, button 1 dismisses it.
public final class BenchSpawnFlow: Flow {
    public typealias RequiredContext = Presenter

    private var spawned: Screen<BenchSpawnedScreen>?

    public init() {}

    public func start(_ flow: FlowContext<BenchSpawnFlow>) {
        let tabs = flow.placer.withTabBarEmbedding(count: 2)
        let home = flow.show(BenchHomeScreen.self, CardState(title: "Home", buttons: ["Spawn", "Dismiss"]), tabs[0])
        home.onOutput { [unowned self] output in
            guard case .didPressButton(let index) = output else { return }
            if index == 0, spawned?.isPlaced != true {
                spawned = flow.show(BenchSpawnedScreen.self, CardState(title: "Spawned", buttons: []), tabs[1])
            } else if index == 1 {
                spawned?.dismiss(animated: false)
                spawned = nil
            }
        }
    }
}

/// The attached home screen of the spawn benchmark.
public enum BenchHomeScreen: CardScreen { public static let kind = "bench-home" }
/// The spawned screen of the spawn benchmark (`flowbench`, from `FLOWD_BENCH_SPAWN`).
public enum BenchSpawnedScreen: CardScreen { public static let kind = "bench-spawned" }
