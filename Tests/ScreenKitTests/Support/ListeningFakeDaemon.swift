import FlowdTestSupport
import FlowSocket
import FlowWire
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A fake flowd on a named socket, for hosts that reconnect by themselves: a thread accepts
/// connections one after another and plays the n-th script on the n-th connection, then closes
/// it (a drop, unless the script said `Shutdown`). Before closing the last one it stops
/// listening, so a host that tries once more finds nobody. The host runs on the test's thread;
/// the scripts block on what the host sends, so nothing here waits on time.
final class ListeningFakeDaemon: @unchecked Sendable {
    // @unchecked: `hellosSeen`, `failuresSeen` and `listening` are only touched under `lock`; the rest is set in init.

    /// One connection's part: what the fake daemon says and expects, in order.
    typealias Script = @Sendable (FakePeer) throws -> Void

    let directory = makeTemporaryDirectory()
    let path: String
    private let listener: Int32
    private let lock = NSLock()
    private var hellosSeen: [Flowd_V1_Hello] = []
    private var failuresSeen: [String] = []
    private var listening = true
    private let finished = DispatchSemaphore(value: 0)

    /// Listens on `<temporary directory>/flowd.sock` (mode 0700 directory, a short path) and
    /// starts serving `scripts`.
    init(_ scripts: [Script]) throws {
        path = directory + "/flowd.sock"
        listener = try listenOnUnixSocket(path: path)
        let thread = Thread { [self] in serve(scripts) }
        thread.start()
    }

    deinit {
        stopListening()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Every `Hello` the host sent, one per connection.
    var hellos: [Flowd_V1_Hello] { lock.withLock { hellosSeen } }

    /// What went wrong in the scripts (an unexpected frame, a host that closed early).
    var failures: [String] { lock.withLock { failuresSeen } }

    /// Waits until every script has run (5 s at most: a hang, not a timing check); false on timeout.
    func waitUntilDone() -> Bool {
        finished.wait(timeout: .now() + 5) == .success
    }

    private func serve(_ scripts: [Script]) {
        defer { finished.signal() }
        for (index, script) in scripts.enumerated() {
            let descriptor = accept(listener, nil, nil)
            guard descriptor >= 0 else {
                record("accept for connection \(index) failed: errno \(errno)")
                return
            }
            let peer = FakePeer(socket: UnixSocket(descriptor: descriptor), record: { [self] hello in
                lock.withLock { hellosSeen.append(hello) }
            })
            do {
                try script(peer)
            } catch {
                record("connection \(index): \(error)")
            }
            if index == scripts.count - 1 { stopListening() }
            peer.socket.close()
        }
    }

    private func stopListening() {
        lock.withLock {
            guard listening else { return }
            listening = false
            _ = Glibc.shutdown(listener, Int32(SHUT_RDWR))
            _ = Glibc.close(listener)
            unlink(path)
        }
    }

    private func record(_ failure: String) {
        lock.withLock { failuresSeen.append(failure) }
    }
}

/// The daemon's end of one accepted connection (on the fake daemon's thread).
final class FakePeer: DaemonEnd {
    /// Why a script stopped.
    struct Unexpected: Error, CustomStringConvertible {
        var description: String
    }

    let socket: UnixSocket
    private let record: (Flowd_V1_Hello) -> Void
    private var decoder = FrameDecoder()
    private var seq: UInt64 = 0

    init(socket: UnixSocket, record: @escaping (Flowd_V1_Hello) -> Void) {
        self.socket = socket
        self.record = record
    }

    func send(_ body: Flowd_V1_Envelope.OneOf_Body, replyTo: UInt64 = 0) throws {
        seq += 1
        try socket.write(FrameEncoder.encode(Flowd_V1_Envelope(body, seq: seq, replyTo: replyTo)))
    }

    /// The next frame from the host (5 s at most).
    func receive() throws -> Flowd_V1_Envelope {
        while true {
            if let envelope = try decoder.nextEnvelope() { return envelope }
            let bytes = try socket.read(timeoutMilliseconds: 5_000)
            guard !bytes.isEmpty else { throw Unexpected(description: "the host closed the connection") }
            decoder.append(bytes)
        }
    }

    /// The next frame with this body, skipping acks and pongs.
    func receive(_ name: String) throws -> Flowd_V1_Envelope {
        while true {
            let envelope = try receive()
            if envelope.bodyName == name { return envelope }
            guard ["Ack", "Pong"].contains(envelope.bodyName) else {
                throw Unexpected(description: "expected \(name), got \(envelope.bodyName)")
            }
        }
    }

    /// Reads the host's `Hello` (recorded for the test) and answers `Welcome`.
    func welcome(token: String, graceMilliseconds: UInt32 = 2_000, resumed: Bool = false, connectionID: UInt64 = 7) throws {
        guard case .hello(let hello) = try receive().body else { throw Unexpected(description: "expected Hello first") }
        record(hello)
        var welcome = Flowd_V1_Welcome()
        welcome.version = 1
        welcome.connectionID = connectionID
        welcome.server = "fake flowd"
        welcome.maxFrameSize = UInt32(WireProtocol.defaultMaxFrameSize)
        welcome.app = "tests"
        welcome.resumeToken = token
        welcome.resumeGraceMs = graceMilliseconds
        welcome.resumed = resumed
        try send(.welcome(welcome), replyTo: 1)
    }

    /// Reads the host's `Hello` (recorded) and refuses its token.
    func refuseResume() throws {
        guard case .hello(let hello) = try receive().body else { throw Unexpected(description: "expected Hello first") }
        record(hello)
        try send(.error(Flowd_V1_Error(code: .resumeRefused, message: "unknown resume token", fatal: true)), replyTo: 1)
    }

    /// Waits for the host's ack of `serial` of `screenID`.
    func expectAck(_ screenID: UInt64, serial: UInt64) throws {
        guard case .ack(let ack) = try receive("Ack").body, ack.screenID == screenID, ack.serial == serial else {
            throw Unexpected(description: "expected the ack of screen \(screenID) serial \(serial)")
        }
    }
}
