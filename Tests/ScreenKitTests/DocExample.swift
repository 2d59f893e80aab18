// Copied from docs/screenkit.md; keep the two in step.
import FlowKit
import ScreenKit

enum Greeting: ScreenModule {                    // the screen module (FlowKit)
    static let kind = "greeting"
    struct State: Codable, Sendable { var title: String; var buttons: [String] }
    enum Output: Codable, Sendable { case didPressButton(index: Int) }
}

/// The example of docs/screenkit.md, compiled (never run) so the page stays true.
struct GreetingScreen {
    static func main() throws {
        // Spawned by flowd (FLOWD_SOCKET_FD + FLOWD_TOKEN), or started by hand.
        let host = try ScreenHost.isSpawned()
            ? ScreenHost.fromEnvironment(name: "greeting")
            : ScreenHost.connect(name: "greeting", provides: [Greeting.kind])
        host.onError = { error in print("flowd said: \(error)") }
        host.register(Greeting.self) { screen in
            print("[\(screen.state.title)] at \(screen.placement)")
            screen.onUpdate { state in print("now: \(state.title)") }
            screen.onPlacementChanged { [unowned screen] change in print("\(change): visible=\(screen.placement.isVisible)") }
            screen.onDismiss { dismissal in print("gone (\(dismissal.reason))") }
            try? screen.send(.didPressButton(index: 1))   // {"didPressButton":{"index":1}}
        }
        let reason = try host.run()                       // blocks; throws on fatal errors
        print("done: \(reason)")                          // .onlyScreenDismissed, .shutdown(.daemonExiting), ...
    }
}
