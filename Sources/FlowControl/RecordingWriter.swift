import FlowSocket
import FlowWire

#if canImport(Glibc)
import Glibc
#endif

/// Writes a `flowctl record` file: one wire frame per envelope (4-byte
/// little-endian length, then a `flowd.v1.Envelope`), each with whole
/// `write(2)` calls so that an interrupted recorder leaves complete frames.
public final class RecordingWriter {
    private var descriptor: Int32
    /// The file being written.
    public let path: String

    /// Creates (or truncates) the file at `path`, mode 0600.
    public init(path: String) throws(SocketError) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SocketError(operation: "open", path: path, code: errno) }
    }

    deinit { close() }

    /// Appends one frame holding `body`.
    public func write(_ body: Flowd_V1_Envelope.OneOf_Body) throws(SocketError) {
        let frame: [UInt8]
        do {
            frame = try FrameEncoder.encode(Flowd_V1_Envelope(body), maxFrameSize: Int(UInt32.max))
        } catch {
            throw SocketError(operation: "encode", path: path, code: EINVAL)
        }
        var offset = 0
        while offset < frame.count {
            let written = frame.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw SocketError(operation: "write", path: path, code: errno)
            }
            offset += written
        }
    }

    /// Closes the file; safe to call twice.
    public func close() {
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }
}
