import ArgumentParser
import FlowWire

#if canImport(Glibc)
import Glibc
#endif

/// Which server a client child talks to, and so which bytes it sends.
enum WireTarget: String, ExpressibleByArgument, CaseIterable {
    /// The C libuv baseline: no handshake bytes; the server's empty ready frame starts the run.
    case baseline
    /// A real flowd: `Hello` as a screen host, `Welcome` starts the run.
    case flowd

    /// Bytes each connection writes once connected.
    var hello: [UInt8] {
        switch self {
        case .baseline:
            return []
        case .flowd:
            var hello = Flowd_V1_Hello()
            hello.minVersion = WireProtocol.supportedVersions.lowerBound
            hello.maxVersion = WireProtocol.supportedVersions.upperBound
            hello.role = .screenHost
            hello.name = "flowbench"
            hello.pid = getpid()
            return Self.frame(.hello(hello))
        }
    }

    /// Frames each connection awaits before it counts as connected.
    var handshakeFrames: Int32 { 1 }

    /// The request of ping-pong and echo runs: the same `Ping` envelope for both
    /// servers, so the baseline moves the same bytes flowd parses.
    var request: [UInt8] {
        var ping = Flowd_V1_Ping()
        ping.nonce = 0x0123_4567_89AB_CDEF
        return Self.frame(.ping(ping), seq: 1_000_000)
    }

    private static func frame(_ body: Flowd_V1_Envelope.OneOf_Body, seq: UInt64 = 1) -> [UInt8] {
        var envelope = Flowd_V1_Envelope()
        envelope.seq = seq
        envelope.body = body
        do {
            return try FrameEncoder.encode(envelope)
        } catch {
            fatalError("flowbench cannot encode its own \(body.name) frame: \(error)")
        }
    }
}
