/// The phase of an interactive gesture. A plain back button sends `committed` alone.
public enum GesturePhase: String, Hashable, Codable, Sendable {
    /// The gesture started; nothing changes yet.
    case began
    /// The gesture was abandoned; nothing changes.
    case cancelled
    /// The gesture completed; the navigation happens.
    case committed
}
