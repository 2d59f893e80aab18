/// Navigation the user started in a screen host, reported for the screen the user acted on.
public enum UserNavigation: Hashable, Codable, Sendable, CustomStringConvertible {
    /// Back (button or swipe): `begin` and `cancel` change nothing; `immediate` (a button) and
    /// `commit` (a finished swipe) pop the screen.
    case back(NavigationPhase)
    /// The user selected tab `index` of the tab bar around the screen.
    case selectTab(Int)
    /// The user closed the modal the screen is in (with everything inside it).
    case closeModal

    /// `back(committed)`, `selectTab(1)`, `closeModal`: what logs and `flowctl` print.
    public var description: String {
        switch self {
        case .back(let phase): "back(\(phase.word))"
        case .selectTab(let index): "selectTab(\(index))"
        case .closeModal: "closeModal"
        }
    }
}
