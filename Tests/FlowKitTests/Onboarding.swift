import FlowKit

/// The Lasso tutorial screen: a title and buttons.
enum TutorialScreen: ScreenModule {
    static let kind = "tutorial"
    struct State: Codable, Equatable { var title: String; var buttons: [String] }
    enum Output: Codable, Equatable { case didPressButton(index: Int) }
}

/// A plain screen with a title and a `tap` output, used as hosts' own screens.
enum PlainScreen: ScreenModule {
    static let kind = "plain"
    struct State: Codable, Equatable { var title: String }
    enum Output: Codable, Equatable { case tap(String) }
}

/// The onboarding tutorial: welcome (skip, next), then finish (done). Skip is an output, done finishes.
final class OnboardingFlow: Flow {
    typealias RequiredContext = NavigationStack
    enum Output: Equatable { case didSkip }
    enum Result: Equatable { case finished }

    func start(_ flow: FlowContext<OnboardingFlow>) {
        let welcome = flow.show(TutorialScreen.self, .init(title: "Welcome", buttons: ["Skip", "Next"]))
        welcome.onOutput { output in
            guard case .didPressButton(let index) = output else { return }
            if index == 0 {
                flow.emit(.didSkip)
                return
            }
            let done = flow.show(TutorialScreen.self, .init(title: "All set", buttons: ["Done"]), .pushed(in: flow.context))
            done.onOutput { _ in flow.finish(.finished) }
        }
    }
}

/// A root flow showing one plain screen with its placer; taps become outputs. Finishes on "finish".
final class ShellFlow<Context: PlacedContext>: Flow {
    typealias RequiredContext = Context
    typealias Output = String
    var screen: Screen<PlainScreen>?
    var context: FlowContext<ShellFlow>?
    let title: String

    init(_ title: String = "home") { self.title = title }

    func start(_ flow: FlowContext<ShellFlow>) {
        context = flow
        let screen = flow.show(PlainScreen.self, .init(title: title))
        self.screen = screen
        screen.onOutput { output in
            guard case .tap(let what) = output else { return }
            if what == "finish" { flow.finish(()) } else { flow.emit(what) }
        }
    }
}
