import FlowKit
import FlowWire

/// The displays as the rest of the daemon reaches them: the core says who joined and left, every
/// `Place` that goes out takes its secret here, and the scenes are handed out at each iteration's end.
extension AppCore {
    /// A display finished its handshake on `connection`.
    mutating func displayJoined(_ connection: UInt64) { displays.joined(connection) }

    /// The connection closed (a display's or not).
    mutating func displayLeft(_ connection: UInt64) {
        if !displays.isEmpty { displays.left(connection) }
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
