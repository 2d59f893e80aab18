import FlowKit

/// A stack that grows on demand, for tests of deep unwinding: button 0 pushes
/// one item, button 1 pushes 999 at once, button 2 finishes the flow (and the
/// app unwinds the whole stack with one dismisser).
public final class DeepStackFlow: Flow {
    public typealias RequiredContext = NavigationStack
    public typealias Result = Int

    private var depth = 0

    public init() {}

    public func start(_ flow: FlowContext<DeepStackFlow>) {
        observe(flow.show(ItemScreen.self, state()), in: flow)
    }

    private func push(_ flow: FlowContext<DeepStackFlow>) {
        observe(flow.show(ItemScreen.self, state(), .pushed(in: flow.context)), in: flow)
    }

    private func state() -> CardState {
        depth += 1
        return CardState(title: "Item \(depth)", buttons: ["Push", "Push 999", "Finish"])
    }

    private func observe(_ item: Screen<ItemScreen>, in flow: FlowContext<DeepStackFlow>) {
        item.onOutput { [unowned self] output in
            guard case .didPressButton(let index) = output else { return }
            switch index {
            case 0: push(flow)
            case 1: for _ in 0..<999 { push(flow) }
            default: flow.finish(depth)
            }
        }
    }
}
