/// Why a placed screen is told its placement again.
public enum PlacementChange: String, Hashable, Codable, Sendable {
    /// It stopped being visible (or top-most): something was pushed or presented over it.
    case covered
    /// It became visible (or top-most) again.
    case uncovered
    /// Its index changed (a screen below it was removed) without a change of visibility.
    case moved
    /// Its tab became the selected one, so it became visible.
    case tabSelected
    /// Another tab of its tab bar was selected, so it stopped being visible.
    case tabDeselected

    /// Whether the screen became visible (or top-most) with this change: `.uncovered` or `.tabSelected`.
    public var isUncovering: Bool { self == .uncovered || self == .tabSelected }
}
