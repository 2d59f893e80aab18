import FlowKit
import FlowKitWire
import FlowSocket
import FlowWire
import Foundation
import ScreenKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's end of a socket pair: a test plays flowd by writing frames
/// with `FrameEncoder` and reading the host's frames with `FrameDecoder`.
/// ScreenKit is single-threaded and blocking, so a test queues the daemon's
/// frames first, then lets the host handle them, then reads what it answered.
final class FakeDaemon: DaemonEnd {
    let socket: UnixSocket
    /// The host's end; the host takes ownership of it.
    let hostDescriptor: Int32
    private var decoder = FrameDecoder()
    private var seq: UInt64 = 0

    init() throws {
        var fds: [Int32] = [-1, -1]
        let result = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds)
        try #require(result == 0, "socketpair failed: \(errno)")
        socket = UnixSocket(descriptor: fds[0])
        hostDescriptor = fds[1]
    }

    /// Writes one frame to the host.
    func send(_ body: Flowd_V1_Envelope.OneOf_Body, replyTo: UInt64 = 0) throws {
        seq += 1
        try socket.write(FrameEncoder.encode(Flowd_V1_Envelope(body, seq: seq, replyTo: replyTo)))
    }

    /// The next frame from the host; fails the test if none comes within 5 s (a hang, not a timing check).
    func receive(sourceLocation: SourceLocation = #_sourceLocation) throws -> Flowd_V1_Envelope {
        while true {
            if let envelope = try decoder.nextEnvelope() { return envelope }
            let bytes = try socket.read(timeoutMilliseconds: 5_000)
            try #require(!bytes.isEmpty, "the host closed the connection", sourceLocation: sourceLocation)
            decoder.append(bytes)
        }
    }

    /// Every frame the host has written so far (the host is synchronous: what it sent is there).
    func receiveAvailable() throws -> [Flowd_V1_Envelope] {
        var frames: [Flowd_V1_Envelope] = []
        while true {
            while let envelope = try decoder.nextEnvelope() { frames.append(envelope) }
            var bytes: [UInt8] = []
            do {
                bytes = try socket.read(timeoutMilliseconds: 0)
            } catch {
                if error.isTimeout { return frames }
                throw error
            }
            if bytes.isEmpty { return frames }
            decoder.append(bytes)
        }
    }

    /// True once the host has closed its end.
    func hostClosed() throws -> Bool {
        _ = try receiveAvailable()
        let bytes = try socket.read(timeoutMilliseconds: 5_000)
        return bytes.isEmpty
    }

    /// Queues `Welcome` and connects a host on the other end; returns it with the Hello it sent.
    func connectHost(
        token: String = "", provides: [String] = ["tutorial"], name: String = "test-host"
    ) throws -> (ScreenHost, Flowd_V1_Hello) {
        var welcome = Flowd_V1_Welcome()
        welcome.version = 1
        welcome.connectionID = 7
        welcome.server = "fake flowd"
        welcome.maxFrameSize = UInt32(WireProtocol.defaultMaxFrameSize)
        welcome.app = "tests"
        try send(.welcome(welcome), replyTo: 1)
        let host = try ScreenHost.connect(descriptor: hostDescriptor, name: name, token: token, provides: provides)
        let hello = try receive()
        guard case .hello(let body) = hello.body else {
            Issue.record("expected Hello, got \(hello.bodyName)")
            return (host, Flowd_V1_Hello())
        }
        #expect(hello.seq == 1)
        return (host, body)
    }
}

/// What a fake daemon says to a host, on whatever socket it has: `send` is all it needs.
protocol DaemonEnd {
    /// Writes one frame to the host.
    func send(_ body: Flowd_V1_Envelope.OneOf_Body, replyTo: UInt64) throws
}

extension DaemonEnd {
    func place(
        _ screenID: UInt64, kind: String = Tutorial.kind, state: some Encodable, placement: Placement = .sample,
        serial: UInt64 = 1, savedState: Data = Data()
    ) throws {
        var place = Flowd_V1_Place()
        place.savedState = savedState
        place.screenID = screenID
        place.kind = kind
        place.state = try .json(encoding: state)
        place.placement = Flowd_V1_Placement(placement, screen: ScreenID(rawValue: screenID))
        place.serial = serial
        place.animated = true
        place.flowID = 3
        place.flowType = "TutorialFlow"
        try send(.place(place), replyTo: 0)
    }

    func update(_ screenID: UInt64, serial: UInt64, state: some Encodable) throws {
        var update = Flowd_V1_Update()
        update.screenID = screenID
        update.serial = serial
        update.state = try .json(encoding: state)
        try send(.update(update), replyTo: 0)
    }

    func placementChanged(_ screenID: UInt64, serial: UInt64, change: Flowd_V1_PlacementChanged.Change, placement: Placement) throws {
        var message = Flowd_V1_PlacementChanged()
        message.screenID = screenID
        message.serial = serial
        message.change = change
        message.placement = Flowd_V1_Placement(placement, screen: ScreenID(rawValue: screenID))
        try send(.placementChanged(message), replyTo: 0)
    }

    func dismiss(_ screenID: UInt64, serial: UInt64, reason: Flowd_V1_Dismiss.Reason = .flowFinished, animated: Bool = true) throws {
        var dismiss = Flowd_V1_Dismiss()
        dismiss.screenID = screenID
        dismiss.serial = serial
        dismiss.reason = reason
        dismiss.animated = animated
        try send(.dismiss(dismiss), replyTo: 0)
    }

    func shutdown(_ reason: Flowd_V1_Shutdown.Reason, message: String = "bye") throws {
        var shutdown = Flowd_V1_Shutdown()
        shutdown.reason = reason
        shutdown.message = message
        try send(.shutdown(shutdown), replyTo: 0)
    }

    func pong(_ nonce: UInt64, replyTo: UInt64 = 0) throws {
        var pong = Flowd_V1_Pong()
        pong.nonce = nonce
        try send(.pong(pong), replyTo: replyTo)
    }
}

/// The screen module the tests host.
enum Tutorial: ScreenModule {
    static let kind = "tutorial"
    struct State: Codable, Sendable, Equatable {
        var title: String
        var buttons: [String]
        var subtitle: String?
    }
    enum Output: Codable, Sendable, Equatable {
        case didPressButton(index: Int)
        case didPressSkip
        case selected(String)
    }
}

/// A second module, to check that handlers are per kind.
enum Menu: ScreenModule {
    static let kind = "menu"
    struct State: Codable, Sendable, Equatable { var items: [String] }
    enum Output: Codable, Sendable, Equatable { case picked(Int) }
}

extension Tutorial.State {
    static let welcome = Tutorial.State(title: "Welcome", buttons: ["Skip", "Next"])
}

extension Placement {
    /// The second screen on the stack in tab 1 of a 3-tab bar (docs/protocol.md §7).
    /// On the wire: window 1 > tab bar 4 (3 tabs) > stack 6 (index 1) > the screen (index 1).
    static let sample = Placement(
        path: [.window, .tab(bar: NodeID(rawValue: 4), index: 1, count: 3), .stack(NodeID(rawValue: 6))],
        index: 1, isTopMost: true, isVisible: true)
}

/// Collects what callbacks saw; a class so closures can append to it.
final class Recorder<Value> {
    var values: [Value] = []
    func append(_ value: Value) { values.append(value) }
}

/// The acks among frames, as (screen, serial).
func acks(in frames: [Flowd_V1_Envelope]) -> [AckPair] {
    frames.compactMap { frame in
        guard case .ack(let ack) = frame.body else { return nil }
        return AckPair(screen: ack.screenID, serial: ack.serial)
    }
}

/// One ack, comparable in expectations.
struct AckPair: Equatable, CustomStringConvertible {
    var screen: UInt64
    var serial: UInt64
    var description: String { "ack(\(screen), \(serial))" }
}
