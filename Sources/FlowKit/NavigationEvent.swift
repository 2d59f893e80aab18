/// Navigation that changed a running flow's UI without the flow asking; delivered to `onNavigation`.
public enum NavigationEvent: Hashable, Sendable {
    /// The user popped this screen of the flow (back).
    case popped(ScreenID)
    /// The user closed a modal containing this screen of the flow.
    case modalClosed(ScreenID)
    /// The user closed the window (one a flow opened) holding this screen of the flow.
    case windowClosed(ScreenID)
    /// The user selected a tab of a tab bar around one of the flow's screens.
    case tabSelected(bar: NodeID, index: Int)
    /// This screen's host died; the screen is gone.
    case screenLost(ScreenID)
    /// This screen was removed because what it was placed on went away.
    case removed(ScreenID)
}
