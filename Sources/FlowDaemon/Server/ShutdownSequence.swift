import FlowWire

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
///
/// What the flows cause (the app ended, the unwinding completed) takes effect at the end of the loop
/// iteration (`endOfIteration`), after every frame already read was answered: a client whose `Ping`
/// was read with its last `Ack` gets its `Pong` before `Shutdown`.
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

    /// Why a shutdown began: what every client's `Shutdown` says.
    package struct Cause: Hashable, Sendable {
        package var reason: Flowd_V1_Shutdown.Reason
        package var message: String

        package init(_ reason: Flowd_V1_Shutdown.Reason, _ message: String) {
            self.reason = reason
            self.message = message
        }

        /// A signal (SIGTERM, SIGINT).
        package static let signal = Cause(.daemonExiting, "flowd received a signal and is exiting")
    }

    /// The current phase.
    package private(set) var phase = DaemonPhase.running
    /// Signals received.
    package private(set) var signals = 0
    /// Why the shutdown began (nil while running).
    package private(set) var cause: Cause?
    /// A shutdown asked for during this loop iteration: it begins at its end.
    private var requested: Cause?
    /// The unwinding completed; draining waits for the dismissals sent before it began.
    private var flowsUnwound = false

    /// Not shutting down.
    package init() {}

    /// SIGTERM/SIGINT: the first starts the shutdown (`begin`), the second exits at once.
    package mutating func signal(hasFlows: Bool) -> Action {
        signals += 1
        return signals > 1 ? .exitNow : begin(hasFlows: hasFlows, cause: .signal)
    }

    /// A shutdown is asked for now (a signal, a test). `hasFlows`: flows or screens to unwind.
    package mutating func begin(hasFlows: Bool, cause: Cause = .signal) -> Action {
        guard phase == .running else { return .none }
        self.cause = cause
        requested = nil
        if hasFlows {
            phase = .unwinding
            return .unwindFlows
        }
        phase = .draining
        return .notifyAndDrain
    }

    /// A shutdown is asked for from inside the flows (the app ended): it begins at the end of the loop
    /// iteration. The first request wins.
    package mutating func request(_ cause: Cause) {
        guard phase == .running, requested == nil else { return }
        requested = cause
    }

    /// Every flow is unwound (each screen acknowledged, timed out or lost): draining begins at the end
    /// of the loop iteration once no dismissal sent before the shutdown is pending either.
    package mutating func unwound() {
        guard phase == .unwinding else { return }
        flowsUnwound = true
    }

    /// Whether `endOfIteration` may have a step to take: false while running with no shutdown asked
    /// for, so the driver need not count flows and dismissals at the end of every iteration.
    package var mayHaveStepDue: Bool { requested != nil || phase == .unwinding }

    /// Whether `endOfIteration` has a step to take (the driver wakes its loop for it).
    package func hasStepDue(pendingDismissals: Int) -> Bool {
        (phase == .running && requested != nil) || (phase == .unwinding && flowsUnwound && pendingDismissals == 0)
    }

    /// The end of a loop iteration: a requested shutdown begins, or a completed unwinding drains.
    /// Call again until it answers `.none`.
    package mutating func endOfIteration(hasFlows: Bool, pendingDismissals: Int) -> Action {
        if phase == .running, let requested { return begin(hasFlows: hasFlows, cause: requested) }
        guard phase == .unwinding, flowsUnwound, pendingDismissals == 0 else { return .none }
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
