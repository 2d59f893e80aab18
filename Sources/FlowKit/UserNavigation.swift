/// Navigation the user started in a screen host, reported for the screen the user acted on.
public enum UserNavigation: Hashable, Codable, Sendable, CustomStringConvertible {
    /// Back (button or swipe): `begin` and `cancel` change nothing; `immediate` (a button) and
    /// `commit` (a finished swipe) pop the screen.
    case back(NavigationPhase)
    /// The user selected tab `index` of the tab bar around the screen.
    case selectTab(Int)
    /// The user closed the modal the screen is in (with everything inside it).
    case closeModal
    /// The user closed the window the screen is in, a window a flow opened (with everything in it).
    case closeWindow

    /// `back(committed)`, `select tab 2`, `closeModal`: what logs and `flowctl` print (a tab counted from 1,
    /// as a person reads it; the case holds the 0-based index).
    public var description: String {
        switch self {
        case .back(let phase): "back(\(phase.word))"
        case .selectTab(let index): "select tab \(index + 1)"
        case .closeModal: "closeModal"
        case .closeWindow: "closeWindow"
        }
    }
}
