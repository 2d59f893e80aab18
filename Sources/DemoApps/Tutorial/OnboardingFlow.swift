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
        welcome.onOutput { [unowned self] output in
            guard case .didPressButton(let index) = output else { return }
            if index == 0 {
                flow.emit(.didSkip)
                return
            }
            showDone(in: flow)
        }
    }

    private var done: Screen<TutorialScreen>?

    private func showDone(in flow: FlowContext<OnboardingFlow>) {
        let done = flow.show(TutorialScreen.self, .init(title: "All set", body: "That is the whole tutorial.", buttons: ["Done"]), .pushed(in: flow.context))
        self.done = done
        done.onOutput { _ in flow.finish(.completed) }
    }
}

/// `tutorial` is the welcome page, `tutorial/done` the last page (pushed as Next does, unless shown).
extension OnboardingFlow: LinkHandling {
    public func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<OnboardingFlow> {
        switch link.first {
        case nil: return .here()
        case "done": return .here(consuming: 1) { [unowned self] flow in if done?.isPlaced != true { showDone(in: flow) } }
        default: throw link.unknown(at: 0, "the tutorial has the page done")
        }
    }

    /// The last page, once it is shown.
    public func place(toward child: (any Flow)?) -> [String]? { done?.isPlaced == true ? ["done"] : [] }
}
