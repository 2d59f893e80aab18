// The custom daemon of docs/daemon.md, compiled by the test suite so the
// page stays true. Not run here: flowd itself is built the same way and the
// integration tests run it.
import FlowApp
import FlowDaemon
import FlowKit

enum GreetingScreen: ScreenModule {
    static let kind = "greeting"
    struct State: Codable { var text: String }
    enum Output: Codable { case ok }
}

final class GreetingFlow: Flow {
    typealias RequiredContext = NavigationStack

    func start(_ flow: FlowContext<GreetingFlow>) {
        flow.show(GreetingScreen.self, .init(text: "Hello")).onOutput { _ in flow.finish(()) }
    }
}

func runGreetingDaemon() throws {
    let app = App(
        name: "greeting",
        screens: [GreetingScreen.kind: .spawn(executable: "greeting-screen")],
        placer: windowRoot.withNavigationEmbedding()
    ) { GreetingFlow() }
    try Daemon.run(app: app) { configuration in
        configuration.ackTimeoutMilliseconds = 5_000
    }
}
