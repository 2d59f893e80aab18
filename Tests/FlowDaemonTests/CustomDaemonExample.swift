// The custom daemon of docs/daemon.md ("Your own daemon"), compiled by the test suite so the page
// stays true: FlowdCommandTests checks that the page's Greeting.swift is this text, and runs its
// command line through the library; scripts/try-custom-daemon builds it as a package of its own.
// file: Sources/greeting-daemon/Greeting.swift
import FlowApp
import FlowdCommand
import FlowKit

/// The one screen: a text and an OK button.
enum GreetingScreen: ScreenModule {
    static let kind = "greeting"
    struct State: Codable { var text: String }
    enum Output: Codable { case ok }
    // What `greeting-daemon describe` shows.
    static var exampleState: State? { State(text: "Hello") }
    static var exampleOutputs: [Output] { [.ok] }
}

/// Shows the greeting until OK.
final class GreetingFlow: Flow {
    typealias RequiredContext = NavigationStack

    func start(_ flow: FlowContext<GreetingFlow>) {
        flow.show(GreetingScreen.self, .init(text: "Hello")).onOutput { _ in flow.finish(()) }
    }
}

/// The apps of this daemon (`--list-apps`); the first is the default `--app`.
let greetingApps = [
    DaemonApp(name: "greeting", summary: "says hello until OK is pressed") {
        App(name: "greeting", modules: [GreetingScreen.self], placer: windowRoot.withNavigationEmbedding()) { GreetingFlow() }
    },
]
// end of file
