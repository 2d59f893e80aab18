#if canImport(Glibc)
import Glibc
#endif

/// Sends datagrams to one Unix-domain datagram socket, without blocking: what `sd_notify` does to
/// `$NOTIFY_SOCKET`. The address is a path, or `@name` in the abstract namespace. One socket
/// (`SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK`) is kept for every send; `close()` closes it.
public final class UnixDatagramSender {
    /// Where the datagrams go, as given.
    public let address: String
    private var descriptor: Int32
    private var socketAddress = sockaddr_un()
    private let addressLength: socklen_t

    /// Opens the socket for `address` (`socket`); throws if the address does not fit in `sun_path`, is empty, or
    /// the socket cannot be created. Nothing is sent yet.
    public init(address: String) throws(UVError) {
        self.address = address
        var bytes = Array(address.utf8)
        let isAbstract = bytes.first == UInt8(ascii: "@")
        if isAbstract { bytes[0] = 0 }
        // A path needs its terminating NUL; an abstract name is exactly its bytes.
        guard !bytes.isEmpty, bytes.count + (isAbstract ? 0 : 1) <= MemoryLayout.size(ofValue: socketAddress.sun_path) else {
            throw UVError.posix(ENAMETOOLONG, "sendto")
        }
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: bytes) }
        addressLength = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (isAbstract ? 0 : 1))
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw UVError.posix(errno, "socket") }
    }

    deinit { close() }

    /// Sends `message` as one datagram (`sendto`, `MSG_NOSIGNAL`); never blocks: a full receiver is `EAGAIN`.
    public func send(_ message: String) throws(UVError) {
        guard descriptor >= 0 else { throw UVError.posix(EBADF, "sendto") }
        let bytes = Array(message.utf8)
        let sent = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), $0, addressLength)
                }
            }
        }
        guard sent == bytes.count else { throw UVError.posix(sent < 0 ? errno : EMSGSIZE, "sendto") }
    }

    /// Closes the socket; later sends throw `EBADF`. Idempotent.
    public func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }
}
