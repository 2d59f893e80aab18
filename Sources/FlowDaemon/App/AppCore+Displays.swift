import FlowKit
import FlowWire

/// The displays as the rest of the daemon reaches them: the core says who joined and left, every
/// `Place` that goes out takes its secret here, and the scenes are handed out at each iteration's end.
extension AppCore {
    /// A display finished its handshake on `connection`.
    mutating func displayJoined(_ connection: UInt64) { displays.joined(connection) }

    /// The connection closed (a display's or not): the displays it provided go.
    mutating func displayLeft(_ connection: UInt64) {
        if !displays.isEmpty { displays.left(connection) }
        if !displays.provided.isEmpty, displays.provided.left(connection) { displaysChanged() }
    }

    /// `connection` (a display or a screen host) provides these displays now. Returns what is wrong
    /// with a bad list instead, changing nothing: the caller closes the connection with it.
    mutating func receiveProvideDisplays(_ message: Flowd_V1_ProvideDisplays, from connection: UInt64) -> String? {
        if let problem = ProvidedDisplays.problem(in: message) { return problem }
        displays.provided.provide(message.displays.map(Display.init), by: connection)
        displaysChanged()
        return nil
    }

    /// Tells the runtime the displays provided now, if they differ from what it knows (after a
    /// restore, the journal's last word, until a connection provides again).
    private mutating func displaysChanged() {
        guard let runtime else { return }
        let now = displays.provided.all
        guard runtime.displays != now else { return }
        logger.info("displays changed", metadata: ["displays": "\(now.isEmpty ? "none" : now.map(\.description).joined(separator: ", "))"])
        do {
            try feed(.displaysChanged(now))
        } catch {
            logger.error("the runtime refused the displays", metadata: ["error": "\(error)"])
            return
        }
        drive()
    }

    /// The secret of the `Place` of `screen` going out now.
    mutating func displayToken(for screen: ScreenID) -> String {
        displays.placed(screen, live: liveScreens)
    }

    /// Whether a display waits for a scene.
    var hasScenesToHand: Bool { displays.hasScenesToHand }

    /// The scenes to send, by display connection.
    mutating func takeScenes() -> [(connection: UInt64, scene: Flowd_V1_DisplayScene)] {
        displays.takeScenes(tree: runtime?.debugTree(), app: appName)
    }
}
