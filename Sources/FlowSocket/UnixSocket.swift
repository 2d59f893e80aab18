#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking Unix stream socket with timeouts: for clients that do one thing
/// at a time (flowctl, screen hosts, tests). The daemon never uses it; it runs on libuv.
public final class UnixSocket {
    /// The descriptor; -1 once closed.
    public private(set) var descriptor: Int32

    /// Wraps an already-connected descriptor (e.g. one inherited from flowd).
    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close() }

    /// Connects to `path`. Throws `SocketError` with the errno of the failure.
    public static func connect(path: String) throws(SocketError) -> UnixSocket {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let bytes = Array(path.utf8)
        guard bytes.count < capacity else {
            throw SocketError(operation: "connect", path: path, code: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        #if canImport(Glibc)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw SocketError(operation: "socket", path: path, code: errno) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            _ = Glibc.close(fd)
            throw SocketError(operation: "connect", path: path, code: code)
        }
        return UnixSocket(descriptor: fd)
    }

    /// Writes all of `bytes`, blocking as needed.
    public func write(_ bytes: [UInt8]) throws(SocketError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw SocketError(operation: "write", path: nil, code: errno)
            }
            offset += written
        }
    }

    /// Reads what is available, waiting at most `timeoutMilliseconds` (-1: forever).
    /// Returns an empty array at end of stream; throws `ETIMEDOUT` on timeout.
    public func read(maxBytes: Int = 65_536, timeoutMilliseconds: Int32) throws(SocketError) -> [UInt8] {
        try waitReadable(timeoutMilliseconds: timeoutMilliseconds)
        var buffer = [UInt8](repeating: 0, count: maxBytes)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress!, maxBytes, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SocketError(operation: "read", path: nil, code: errno)
            }
            buffer.removeSubrange(count...)
            return buffer
        }
    }

    private func waitReadable(timeoutMilliseconds: Int32) throws(SocketError) {
        var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&pollDescriptor, 1, timeoutMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { throw SocketError(operation: "poll", path: nil, code: errno) }
            if ready == 0 { throw SocketError(operation: "read", path: nil, code: ETIMEDOUT) }
            return
        }
    }

    /// Closes the descriptor; safe to call twice.
    public func close() {
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }
}
