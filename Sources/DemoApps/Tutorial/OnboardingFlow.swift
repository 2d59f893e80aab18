import FlowKit

/// The onboarding tutorial: a welcome screen (skip, next), then a finish
/// screen (done) pushed on the same stack. Skip is an output the parent may
/// act on; done finishes the flow.
public final class OnboardingFlow: Flow {
    public typealias RequiredContext = NavigationStack
    public enum Output: Sendable, Equatable { case didSkip }
    public enum Result: Sendable, Equatable { case completed }

    public init() {}

    public func start(_ flow: FlowContext<OnboardingFlow>) {
        let welcome = flow.show(TutorialScreen.self, .init(title: "Welcome", body: "flowd runs your flows.", buttons: ["Skip", "Next"]))
        welcome.onOutput { output in
            guard case .didPressButton(let index) = output else { return }
            if index == 0 {
                flow.emit(.didSkip)
                return
            }
            let done = flow.show(TutorialScreen.self, .init(title: "All set", body: "That is the whole tutorial.", buttons: ["Done"]), .pushed(in: flow.context))
            done.onOutput { _ in flow.finish(.completed) }
        }
    }
}
