/// How one screen's dismissal ended.
public enum DismissOutcome: String, Hashable, Codable, Sendable {
    /// The screen acknowledged its removal.
    case acknowledged
    /// The screen did not answer in time.
    case timedOut
    /// The screen's host went away before answering.
    case hostLost
}
