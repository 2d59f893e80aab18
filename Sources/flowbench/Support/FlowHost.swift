import CBenchRelay
import DemoApps
import FlowWire
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking flowd screen host on one socket (the C drivers do the I/O): the
/// hosts of the flowd latency, scale and start-up rows.
enum FlowHost {
    /// The output every benchmark host sends, as a person writes it (`InjectOutput`): a press of button `index`.
    static func pressJSON(_ index: Int) -> String { #"{"didPressButton":{"index":\#(index)}}"# }

    /// The same press in the card screens' own form (protobuf `flowd.demo.v1.CardOutput`), as a host sends it.
    static func pressPayload(_ index: Int) -> Flowd_V1_Payload {
        var payload = Flowd_V1_Payload()
        payload.contentType = CardOutput.payloadContentType
        payload.data = try! CardOutput.didPressButton(index: index).binaryPayload()
        return payload
    }

    /// Connects to `socket`, says Hello providing `kind` (with `token` for a spawned
    /// screen) and waits for the Place of its screen, which it acknowledges.
    static func connect(socket: String, kind: String, context: String) throws -> (fd: Int32, screen: UInt64) {
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        let fd = cbr_connect(socket, &error)
        guard fd >= 0 else { throw BenchError(context: context, cError: error) }
        do {
            let screen = try handshake(fd: fd, kind: kind, token: nil, context: context)
            return (fd, screen)
        } catch {
            close(fd)
            throw error
        }
    }

    /// Hello on a connected `fd`, then the first Place (acknowledged, waited for up to `timeoutMilliseconds`);
    /// returns its screen id.
    static func handshake(fd: Int32, kind: String?, token: String?, context: String, timeoutMilliseconds: Int32 = 30_000) throws -> UInt64 {
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        var hello = [UInt8](repeating: 0, count: 1024)
        let length = cbr_encode_hello(&hello, hello.count, "flowbench", kind, token)
        guard length > 0 else { throw BenchError("\(context): the Hello for kind \(kind ?? "-") does not fit in 1 KiB") }
        let sent = hello.withUnsafeBytes { send(fd, $0.baseAddress, length, Int32(MSG_NOSIGNAL)) }
        guard sent == length else { throw BenchError("\(context): cannot send Hello: \(String(cString: strerror(errno)))") }
        var screen: UInt64 = 0
        guard cbr_host_await_place(fd, timeoutMilliseconds, &screen, &error) == 0 else {
            throw BenchError(context: "\(context), waiting for the Place of a \(kind ?? "spawned") screen", cError: error)
        }
        return screen
    }

    /// The Output frame of a press of button `index` on `screen`.
    static func outputFrame(screen: UInt64, button index: Int) -> [UInt8] {
        var frame = [UInt8](repeating: 0, count: 1200)
        let length = cbr_encode_press(&frame, frame.count, screen, UInt32(index))
        return Array(frame[..<length])
    }

    /// Writes all of `bytes` to the blocking `fd`.
    static func write(_ bytes: [UInt8], to fd: Int32, context: String) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw BenchError("\(context): write to flowd failed: \(String(cString: strerror(errno)))") }
            offset += n
        }
    }
}
