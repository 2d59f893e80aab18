import FlowKit

/// A parent whose sub-flow's screens are left in place: the home screen's
/// button 0 starts the onboarding tutorial pushed on the same stack; when it
/// finishes the parent leaves its screens (adopting them); home's button 1
/// finishes the parent, and the app dismisses everything without animation.
public final class LeaveInPlaceFlow: Flow {
    public typealias RequiredContext = NavigationStack
    public typealias Result = String

    public init() {}

    public func start(_ flow: FlowContext<LeaveInPlaceFlow>) {
        let home = flow.show(ItemScreen.self, .init(title: "Home", buttons: ["Start tutorial", "Finish"]))
        home.onOutput { output in
            guard case .didPressButton(let index) = output else { return }
            if index == 1 {
                flow.finish("finished with \(flow.runningSubFlows.count) sub-flows running")
                return
            }
            flow.start(OnboardingFlow(), .pushed(in: flow.context)) { _ in
                // Skipping is not offered a meaning here: the tutorial keeps running.
            } onFinish: { _, dismisser in
                dismisser.leave()
            } onEnd: { ending in
                // Back from the tutorial is what the user may do; anything else is shown on home.
                guard ending != .dismissedByUser else { return }
                home.update(.init(title: "Home", body: "Tutorial \(ending)", buttons: ["Start tutorial", "Finish"]))
            }
        }
    }
}
