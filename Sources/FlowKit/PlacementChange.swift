/// Why a placed screen is told its placement again.
public enum PlacementChange: String, Hashable, Codable, Sendable {
    /// It stopped being visible (or top-most): something was pushed or presented over it, or its tab lost selection.
    case covered
    /// It became visible (or top-most) again.
    case uncovered
    /// Its index changed (a screen below it was removed) without a change of visibility.
    case moved
}
