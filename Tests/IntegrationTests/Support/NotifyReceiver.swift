import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// systemd's side of `sd_notify` for a test: a bound datagram socket at `address` (a path, or `@name` in the
/// abstract namespace) whose notifications the test reads, each one datagram of `KEY=value` lines.
final class NotifyReceiver {
    /// What to put in `NOTIFY_SOCKET`.
    let address: String
    private let descriptor: Int32

    init(address: String) throws {
        self.address = address
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(address.utf8)
        let isAbstract = bytes.first == UInt8(ascii: "@")
        if isAbstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (isAbstract ? 0 : 1))
        let rc = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard rc == 0 else {
            let code = errno
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    deinit { close(descriptor) }

    /// The next notification, or nil if none came within `timeoutMilliseconds`.
    func receive(timeoutMilliseconds: Int32 = 10_000) -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        var ready: Int32
        repeat { ready = poll(&poller, 1, timeoutMilliseconds) } while ready < 0 && errno == EINTR
        guard ready > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        return count >= 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }

    /// Notifications up to and including the first one that contains the line `line` (e.g. `READY=1`); all of them,
    /// without such a one, once `timeoutSeconds` passed with nothing more.
    func receive(untilLine line: String, timeoutSeconds: Double = 30) -> [String] {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        var messages: [String] = []
        while deadline.timeIntervalSinceNow > 0,
              let message = receive(timeoutMilliseconds: Int32(deadline.timeIntervalSinceNow * 1000) + 1) {
            messages.append(message)
            if Self.lines(of: message).contains(line) { break }
        }
        return messages
    }

    /// The `KEY=value` lines of a notification.
    static func lines(of message: String) -> [String] {
        message.split(separator: "\n").map(String.init)
    }

    /// The value of `STATUS=` in a notification, if it has one.
    static func status(in message: String) -> String? {
        lines(of: message).first { $0.hasPrefix("STATUS=") }.map { String($0.dropFirst("STATUS=".count)) }
    }
}
