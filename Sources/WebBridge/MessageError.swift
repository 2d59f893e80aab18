/// A WebSocket message the bridge cannot take: not JSON, an unknown `type`, a missing or
/// ill-typed field. The server closes the socket with `reason` (docs/web.md).
package struct MessageError: Error, Equatable, CustomStringConvertible {
    /// What was wrong, for the close frame and the log.
    package var reason: String

    init(_ reason: String) { self.reason = reason }

    package var description: String { reason }
}
