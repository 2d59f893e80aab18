import FlowKit

/// A home screen in a stack that presents a sub-flow modally, for tests of
/// modals, `flowctl close-modal` and `flowctl terminate`: home's button 0
/// presents `ModalDetailFlow` in its own stack, on the home screen; button 1
/// finishes the app.
public final class ModalFlow: Flow {
    public typealias RequiredContext = NavigationStack
    public typealias Result = String

    public init() {}

    public func start(_ flow: FlowContext<ModalFlow>) {
        let home = flow.show(ItemScreen.self, .init(title: "Home", buttons: ["Present", "Finish"]))
        home.onOutput { output in
            guard case .didPressButton(let index) = output else { return }
            if index == 1 {
                flow.finish("finished")
                return
            }
            flow.start(ModalDetailFlow(), presented(on: home).withNavigationEmbedding()) { _, dismisser in
                dismisser.dismiss(animated: true)
            } onEnd: { ending in
                // Closing the modal and terminating it are what the tests do; anything else is shown on home.
                switch ending {
                case .dismissedByUser, .terminated: break
                case .screenLost, .failed: home.update(.init(title: "Home", body: "Detail \(ending)", buttons: ["Present", "Finish"]))
                }
            }
        }
    }
}

/// The presented flow: a detail screen whose button 0 pushes another detail
/// and button 1 finishes (the parent dismisses the modal).
public final class ModalDetailFlow: Flow {
    public typealias RequiredContext = NavigationStack
    public typealias Result = Int

    private var depth = 0

    public init() {}

    public func start(_ flow: FlowContext<ModalDetailFlow>) {
        observe(flow.show(ItemScreen.self, state()), flow)
    }

    private func state() -> CardState {
        depth += 1
        return CardState(title: "Detail \(depth)", buttons: ["Push", "Done"])
    }

    private func observe(_ screen: Screen<ItemScreen>, _ flow: FlowContext<ModalDetailFlow>) {
        screen.onOutput { [unowned self] output in
            guard case .didPressButton(let index) = output else { return }
            if index == 0 {
                observe(flow.show(ItemScreen.self, state(), .pushed(in: flow.context)), flow)
            } else {
                flow.finish(depth)
            }
        }
    }
}
