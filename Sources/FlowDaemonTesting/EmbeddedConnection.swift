import FlowWire
import Foundation

/// The test's end of one connection to an embedded daemon: send frames (or raw bytes), read the
/// frames the daemon wrote, hang up, or stop reading.
public final class EmbeddedConnection {
    /// The daemon's id for this connection (as in `Welcome.connection_id`).
    public let id: UInt64
    let pipe: EmbeddedPipe
    unowned let daemon: EmbeddedDaemon
    private var decoder = FrameDecoder()
    private var lastSeq: UInt64 = 0

    init(id: UInt64, pipe: EmbeddedPipe, daemon: EmbeddedDaemon) {
        self.id = id
        self.pipe = pipe
        self.daemon = daemon
    }

    /// Sends one frame and lets the daemon run; returns its seq.
    @discardableResult
    public func send(_ body: Flowd_V1_Envelope.OneOf_Body) -> UInt64 {
        lastSeq += 1
        var bytes: [UInt8] = []
        // Encoding our own well-formed message cannot fail below the frame limit.
        try? FrameEncoder.append(body, seq: lastSeq, to: &bytes, maxFrameSize: Int(UInt32.max))
        sendBytes(bytes)
        return lastSeq
    }

    /// Sends raw bytes (half a frame, garbage, several frames) and lets the daemon run.
    public func sendBytes(_ bytes: [UInt8]) {
        pipe.feed(bytes)
        daemon.run()
    }

    /// Sends `bodies` in one write, as a fast peer does, and lets the daemon read them (its read
    /// callback) but run nothing more: `EmbeddedDaemon.runIteration()` runs the rest of the loop's
    /// iteration. Returns the seq of the last frame.
    @discardableResult
    public func write(_ bodies: [Flowd_V1_Envelope.OneOf_Body]) -> UInt64 {
        var bytes: [UInt8] = []
        for body in bodies {
            lastSeq += 1
            try? FrameEncoder.append(body, seq: lastSeq, to: &bytes, maxFrameSize: Int(UInt32.max))
        }
        pipe.feed(bytes)
        return lastSeq
    }

    /// The frames the daemon wrote since the last call, in order. Undecodable bytes end the list.
    /// `settle` false reads what was written so far without letting the daemon run further (to
    /// see what one `EmbeddedDaemon.runIteration()` wrote).
    public func readFrames(settle: Bool = true) -> [Flowd_V1_Envelope] {
        if settle { daemon.run() }
        decoder.append(pipe.take())
        var frames: [Flowd_V1_Envelope] = []
        while let envelope = try? decoder.nextEnvelope() { frames.append(envelope) }
        return frames
    }

    /// The bodies of `readFrames()`.
    public func readBodies(settle: Bool = true) -> [Flowd_V1_Envelope.OneOf_Body] { readFrames(settle: settle).compactMap(\.body) }

    /// Sends `Hello` and returns the daemon's answer (`Welcome` or `Error`, and anything before);
    /// `maxFrameSize` is what the peer accepts (0: the protocol's default).
    @discardableResult
    public func hello(role: Flowd_V1_Role, name: String = "test", provides: [String] = [], token: String = "",
                      resumeToken: String = "", maxFrameSize: UInt32 = 0) -> [Flowd_V1_Envelope.OneOf_Body] {
        var hello = Flowd_V1_Hello()
        hello.maxFrameSize = maxFrameSize
        hello.minVersion = WireProtocol.supportedVersions.lowerBound
        hello.maxVersion = WireProtocol.supportedVersions.upperBound
        hello.role = role
        hello.name = name
        hello.provides = provides
        hello.token = token
        hello.resumeToken = resumeToken
        send(.hello(hello))
        return readBodies()
    }

    /// Acknowledges `serial` of `screen`.
    public func ack(_ screen: UInt64, serial: UInt64) {
        var ack = Flowd_V1_Ack()
        ack.screenID = screen
        ack.serial = serial
        send(.ack(ack))
    }

    /// The peer closes its end.
    public func hangUp() {
        pipe.hangUp()
        daemon.run()
    }

    /// Whether the daemon closed this connection.
    public var isClosed: Bool {
        daemon.run()
        return pipe.isClosed
    }

    /// Whether the peer reads what the daemon writes (false: a stalled reader whose unread bytes count
    /// against the daemon's write-queue limit).
    public var reads: Bool {
        get { pipe.peerReads }
        set { pipe.peerReads = newValue }
    }
}
