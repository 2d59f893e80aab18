/// Why `ScreenHost.run()` (or `pollOnce`) ended without throwing.
public enum ExitReason: Sendable, Hashable {
    /// The daemon sent `Shutdown` with this reason (never `.screenDismissed`, see below).
    case shutdown(ShutdownReason)
    /// The host ends with its only screen: the daemon sent `Shutdown(SCREEN_DISMISSED)`,
    /// or, for a host with `endsWhenLastScreenDismissed`, its last screen's dismissal was
    /// acked and the daemon then closed or stayed silent for `shutdownGraceMilliseconds`.
    case onlyScreenDismissed
    /// The connection ended without a `Shutdown` (the daemon died or closed it); for a host
    /// that reconnects by itself, once it has given up (see `ReconnectPolicy`).
    case connectionClosed
    /// `ScreenHost.stop()` was called.
    case stopped
}
