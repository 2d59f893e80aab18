/// Where the daemon is in its life: serving, then the phases of a graceful shutdown.
public enum DaemonPhase: Hashable, Sendable {
    /// Serving.
    case running
    /// Shutdown began: every flow is being unwound while the hosts are still connected.
    case unwinding
    /// Every client got `Shutdown`; waiting for connections to close and children to exit.
    case draining
    /// Every handle is closed; the loop ends.
    case stopped
}

/// The graceful shutdown as a value (swift-service-lifecycle's `ServiceGroup` idea): named phases,
/// started once, each transition an event in and an action out; the daemon performs the actions.
/// running → unwinding (flows to unwind) → draining (`Shutdown` sent, connections closing, children
/// exiting) → stopped. A second signal exits at once, whatever the phase.
package struct ShutdownSequence: Hashable, Sendable {
    /// What the daemon must do.
    package enum Action: Hashable, Sendable {
        /// Nothing (the event does not apply in this phase).
        case none
        /// Stop accepting and terminate every flow; answer `unwound()` when the unwinding completes.
        case unwindFlows
        /// Stop accepting (if still), send `Shutdown` to every client and close them gracefully.
        case notifyAndDrain
        /// Every connection closed but children run: make them exit within the grace period.
        case stopChildren
        /// Nothing is left: close the loop's handles.
        case finish
        /// A second signal: exit the process now.
        case exitNow
    }

    /// The current phase.
    package private(set) var phase = DaemonPhase.running
    /// Signals received.
    package private(set) var signals = 0

    /// Not shutting down.
    package init() {}

    /// SIGTERM/SIGINT: the first starts the shutdown (`begin`), the second exits at once.
    package mutating func signal(hasFlows: Bool) -> Action {
        signals += 1
        return signals > 1 ? .exitNow : begin(hasFlows: hasFlows)
    }

    /// A shutdown is asked for (a signal, the app finished, a test). `hasFlows`: flows or screens to unwind.
    package mutating func begin(hasFlows: Bool) -> Action {
        guard phase == .running else { return .none }
        if hasFlows {
            phase = .unwinding
            return .unwindFlows
        }
        phase = .draining
        return .notifyAndDrain
    }

    /// Every flow is unwound (each screen acknowledged, timed out or lost).
    package mutating func unwound() -> Action {
        guard phase == .unwinding else { return .none }
        phase = .draining
        return .notifyAndDrain
    }

    /// Connections closed or children exited while draining: what is left decides.
    package mutating func check(connections: Int, children: Int) -> Action {
        guard phase == .draining else { return .none }
        if children > 0 { return connections == 0 ? .stopChildren : .none }
        guard connections == 0 else { return .none }
        phase = .stopped
        return .finish
    }
}
