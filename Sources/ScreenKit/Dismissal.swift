import FlowWire

/// How and why a screen is being removed; given to `HostedScreen.onDismiss`.
public struct Dismissal: Sendable, Hashable {
    /// Why the screen goes.
    public enum Reason: Sendable, Hashable {
        /// The owning flow finished and its parent dismissed its UI.
        case flowFinished
        /// The owning flow (or an ancestor) was terminated.
        case flowTerminated
        /// The user removed it (back, close modal); it is already gone from view: do not animate.
        case userNavigation
        /// The daemon is shutting down.
        case shutdown
        /// Removed by force: a host did not acknowledge a command in time (an ack timeout, the
        /// daemon's `REASON_REMOVED`).
        case removed
        /// Local: the daemon removed the screen by force after an ack timeout
        /// (non-fatal `ACK_TIMEOUT`); no ack is sent for it.
        case ackTimeout
        /// Local: the connection dropped and the host resumed on a new one. The daemon places the
        /// screen again right after (a new `HostedScreen` with the same id) unless it was dismissed
        /// meanwhile; clear it without animation, or keep its view for the `Place` of its id.
        case resumed
        /// Local: the connection dropped and could not be resumed (the daemon refused the token, or
        /// keeps nothing): the daemon has forgotten the screen. No ack is sent for it.
        case connectionLost
        /// A reason this version of ScreenKit does not know.
        case unspecified
    }

    /// Why.
    public var reason: Reason
    /// Whether the host should animate the removal.
    public var animated: Bool

    /// A dismissal from its parts.
    public init(reason: Reason, animated: Bool) {
        self.reason = reason
        self.animated = animated
    }
}

extension Dismissal.Reason {
    /// The reason a wire `Dismiss.Reason` names.
    package init(_ wire: Flowd_V1_Dismiss.Reason) {
        self =
            switch wire {
            case .flowFinished: .flowFinished
            case .flowTerminated: .flowTerminated
            case .userNavigation: .userNavigation
            case .shutdown: .shutdown
            case .removed: .removed
            default: .unspecified
            }
    }
}
