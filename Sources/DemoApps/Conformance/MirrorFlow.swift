import FlowKit

/// Two screens on two tabs, updated together: every press of button 0 on the
/// item screen (tab 0) gives both screens a new count and a 2 KiB body. Used
/// to show that a host that stops reading is cut off without delaying the
/// other. Button 1 finishes the flow. Button 2 updates the item screen with the
/// state it has (nothing is sent), button 3 the same forced (an `Update` is
/// sent). A lost screen is reported and the flow carries on with the other one.
public final class MirrorFlow: Flow {
    public typealias RequiredContext = Presenter
    public typealias Result = Int

    private var count = 0
    private var lost: Set<ScreenID> = []

    public init() {}

    public func start(_ flow: FlowContext<MirrorFlow>) {
        let tabs = flow.placer.withTabBarEmbedding(count: 2)
        let item = flow.show(ItemScreen.self, state(), tabs[0])
        let mirror = flow.show(TutorialScreen.self, state(), tabs[1])
        flow.onNavigation { [unowned self] event in
            if case .screenLost(let screen) = event { lost.insert(screen) }
        }
        item.onOutput { [unowned self] output in
            guard case .didPressButton(let index) = output else { return }
            if index == 2 || index == 3 {
                item.update(state(), forced: index == 3)
                return
            }
            guard index == 0 else {
                flow.finish(count)
                return
            }
            count += 1
            item.update(state())
            if !lost.contains(mirror.id) { mirror.update(state()) }
        }
    }

    private func state() -> CardState {
        CardState(title: "Count \(count)", body: String(repeating: "·", count: 1024), buttons: ["Count", "Finish", "Same state", "Same state, forced"])
    }
}
