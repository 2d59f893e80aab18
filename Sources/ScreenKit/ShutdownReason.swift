import FlowWire

/// Why the daemon closed the connection on purpose (the `Shutdown` frame).
public enum ShutdownReason: Sendable, Hashable {
    /// flowd got SIGTERM/SIGINT or was asked to stop; every flow was unwound first.
    case daemonExiting
    /// The app's root flow finished.
    case appFinished
    /// A spawned host's screen is gone: exit now. `ScreenHost.run()` reports
    /// this as `ExitReason.onlyScreenDismissed`.
    case screenDismissed
    /// The daemon found a protocol error; a fatal `Error` came just before.
    case protocolError
    /// The daemon's watchdog found the host hung (it answered no `Ping` in time) and cut it off.
    /// Not an ending for a host that reconnects by itself: it resumes (docs/protocol.md §19).
    case hung
    /// A reason this version of ScreenKit does not know.
    case unspecified

    /// The reason a wire `Shutdown.Reason` names.
    package init(_ wire: Flowd_V1_Shutdown.Reason) {
        self =
            switch wire {
            case .daemonExiting: .daemonExiting
            case .appFinished: .appFinished
            case .screenDismissed: .screenDismissed
            case .protocolError: .protocolError
            case .hung: .hung
            default: .unspecified
            }
    }
}
