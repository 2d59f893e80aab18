import FlowKit

/// The flowd side of flowbench's relay latency row: two screens of two kinds
/// in two tabs, hosted by two processes. An output of screen A updates screen B;
/// an output of screen B updates screen A. So a round trip host A -> flowd ->
/// host B -> flowd -> host A takes the same path as the baseline relay.
public final class BenchRelayFlow: Flow {
    public typealias RequiredContext = Presenter

    private var count = 0

    public init() {}

    public func start(_ flow: FlowContext<BenchRelayFlow>) {
        let tabs = flow.placer.withTabBarEmbedding(count: 2)
        let a = flow.show(BenchRelayAScreen.self, state(), tabs[0])
        let b = flow.show(BenchRelayBScreen.self, state(), tabs[1])
        a.onOutput { [unowned self] _ in
            count += 1
            b.update(state())
        }
        b.onOutput { [unowned self] _ in
            count += 1
            a.update(state())
        }
    }

    private func state() -> CardState {
        CardState(title: "\(count)", buttons: ["Next"])
    }
}

/// Screen A of the relay benchmark (host A provides it).
public enum BenchRelayAScreen: CardScreen { public static let kind = "bench-relay-a" }
/// Screen B of the relay benchmark (host B provides it).
public enum BenchRelayBScreen: CardScreen { public static let kind = "bench-relay-b" }
