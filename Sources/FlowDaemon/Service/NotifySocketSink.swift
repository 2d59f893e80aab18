import UVKit

/// The service manager's notification socket (`$NOTIFY_SOCKET`): each notification is one datagram,
/// sent without blocking (UVKit's `UnixDatagramSender`; a path, or `@name` in the abstract namespace).
final class NotifySocketSink: ServiceNotifySink {
    private let sender: UnixDatagramSender

    /// A sink for `address`; throws if no socket can be made for it (too long, no descriptors).
    init(address: String) throws(UVError) {
        sender = try UnixDatagramSender(address: address)
    }

    func send(_ message: String) throws {
        try sender.send(message)
    }

    /// Closes the socket.
    func close() { sender.close() }
}
