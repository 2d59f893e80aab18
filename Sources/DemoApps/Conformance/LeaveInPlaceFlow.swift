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
            flow.start(OnboardingFlow(), .pushed(in: flow.context)) { event in
                if case .finished(_, let dismisser) = event { dismisser.leave() }
            }
        }
    }
}
