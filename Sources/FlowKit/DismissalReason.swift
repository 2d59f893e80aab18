/// Why a screen is dismissed, as the host is told: the cause of the input that led to it.
public enum DismissalReason: Hashable, Sendable, CustomStringConvertible {
    /// The app's own logic removed it (a flow finished, a dismisser, a replaced placement).
    case flowFinished
    /// A flow was terminated from outside (`flowctl terminate`).
    case flowTerminated
    /// The user navigated (back, closing a modal) and this followed.
    case userNavigation
    /// The daemon is shutting down.
    case shutdown
    /// Removed by force: the host did not acknowledge a command in time.
    case removed

    /// The reason's name.
    public var description: String {
        switch self {
        case .flowFinished: "flowFinished"
        case .flowTerminated: "flowTerminated"
        case .userNavigation: "userNavigation"
        case .shutdown: "shutdown"
        case .removed: "removed"
        }
    }
}
