import FlowControl
import FlowSocket
import FlowWire
import Testing

/// A test client that speaks the protocol byte by byte: it can send valid
/// frames, garbage or half a header, and reads what the daemon answers.
final class RawClient {
    let socket: UnixSocket
    private var decoder = FrameDecoder()
    private var seq: UInt64 = 0

    init(path: String) throws {
        socket = try UnixSocket.connect(path: path)
    }

    /// Sends raw bytes as they are.
    func sendBytes(_ bytes: [UInt8]) throws {
        try socket.write(bytes)
    }

    /// Sends one framed envelope with the next seq; returns that seq.
    @discardableResult
    func send(_ body: Flowd_V1_Envelope.OneOf_Body, replyTo: UInt64 = 0) throws -> UInt64 {
        seq += 1
        var envelope = Flowd_V1_Envelope()
        envelope.seq = seq
        envelope.replyTo = replyTo
        envelope.body = body
        try socket.write(FrameEncoder.encode(envelope))
        return seq
    }

    /// The next frame, or nil if the daemon closed the connection.
    func receive(timeoutMilliseconds: Int32 = 10_000) throws -> Flowd_V1_Envelope? {
        while true {
            if let envelope = try decoder.nextEnvelope() { return envelope }
            let bytes = try socket.read(timeoutMilliseconds: timeoutMilliseconds)
            if bytes.isEmpty { return nil }
            decoder.append(bytes)
        }
    }

    /// Reads until the daemon closes; returns every frame it sent before that.
    func receiveUntilClosed(timeoutMilliseconds: Int32 = 10_000) throws -> [Flowd_V1_Envelope] {
        var frames: [Flowd_V1_Envelope] = []
        while let frame = try receive(timeoutMilliseconds: timeoutMilliseconds) {
            frames.append(frame)
        }
        return frames
    }

    /// A Hello for `role` speaking `versions`.
    static func hello(role: Flowd_V1_Role = .screenHost, versions: ClosedRange<UInt32> = 1...1, name: String = "raw-test", provides: [String] = [],
                      resumeToken: String = "") -> Flowd_V1_Envelope.OneOf_Body {
        var hello = Flowd_V1_Hello()
        hello.resumeToken = resumeToken
        hello.minVersion = versions.lowerBound
        hello.maxVersion = versions.upperBound
        hello.role = role
        hello.name = name
        hello.provides = provides
        return .hello(hello)
    }

    /// Connects and completes the handshake, returning the Welcome.
    @discardableResult
    func handshake(role: Flowd_V1_Role = .screenHost, name: String = "raw-test", provides: [String] = [], resumeToken: String = "",
                   sourceLocation: SourceLocation = #_sourceLocation) throws -> Flowd_V1_Welcome {
        let seq = try send(Self.hello(role: role, name: name, provides: provides, resumeToken: resumeToken))
        let reply = try #require(try receive(), "daemon closed during handshake", sourceLocation: sourceLocation)
        #expect(reply.replyTo == seq, sourceLocation: sourceLocation)
        guard case .welcome(let welcome) = reply.body else {
            Issue.record("expected Welcome, got \(String(describing: reply.body))", sourceLocation: sourceLocation)
            throw RawClientError.unexpected
        }
        return welcome
    }

    /// Sends a Ping and waits for its Pong (a barrier); returns frames received before it.
    @discardableResult
    func ping(nonce: UInt64 = 7, sourceLocation: SourceLocation = #_sourceLocation) throws -> [Flowd_V1_Envelope] {
        var ping = Flowd_V1_Ping()
        ping.nonce = nonce
        let seq = try send(.ping(ping))
        var before: [Flowd_V1_Envelope] = []
        while let frame = try receive() {
            if frame.replyTo == seq, case .pong(let pong) = frame.body {
                #expect(pong.nonce == nonce, sourceLocation: sourceLocation)
                return before
            }
            before.append(frame)
        }
        Issue.record("daemon closed before answering Ping", sourceLocation: sourceLocation)
        throw RawClientError.unexpected
    }
}

enum RawClientError: Error {
    case unexpected
}
