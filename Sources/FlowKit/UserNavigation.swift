/// Navigation the user started in a screen host, reported for the screen the user acted on.
public enum UserNavigation: Hashable, Codable, Sendable {
    /// Back (button or swipe): `began` and `cancelled` change nothing; `committed` pops the screen.
    case back(GesturePhase)
    /// The user selected tab `index` of the tab bar around the screen.
    case selectTab(Int)
    /// The user closed the modal the screen is in (with everything inside it).
    case closeModal
}
