import DemoApps
import DemoScreens
import FlowSocket
import FlowWire
import Foundation
import ScreenKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A walk's last step may end the session (the launcher's Quit): flowd then sends `Shutdown` and
/// closes, and on a loaded machine it does so before it reads the step's `Ping` barrier. A fake
/// daemon that never answers that `Ping` makes the race certain.
@Suite("a walk that ends the session")
struct WalkEndTests {
    @Test("the last step ends the session before its barrier is answered: the walk ends with flowd's reason")
    func lastStepEndsTheSession() throws {
        let (host, deck, daemon) = try connectToClosingDaemon()
        let lines = WalkLines()
        let runner = ScriptRunner(host: host, deck: deck, script: try Script(parsing: #"on menu press "Quit""#), log: lines.append)
        #expect(try runner.runInOrder() == .shutdown(.appFinished))
        daemon.join()
        #expect(daemon.outputs == 1)
        #expect(lines.all.contains { $0.contains("the session ended with the last one") }, "\(lines.all)")
    }

    @Test("a step left after the session ended fails the walk, naming it")
    func stepAfterTheEndFails() throws {
        let (host, deck, daemon) = try connectToClosingDaemon()
        let runner = ScriptRunner(
            host: host, deck: deck, script: try Script(parsing: "on menu press \"Quit\"\non menu press \"Quit\""), log: { _ in })
        do {
            _ = try runner.runInOrder()
            Issue.record("the walk went on after the session ended")
        } catch let failure as ScriptRunner.Failure {
            #expect(failure.description.hasPrefix("script line 2: the session ended (shutdown("), "\(failure)")
            #expect(failure.description.hasSuffix("after line 1, before this step"), "\(failure)")
        }
        daemon.join()
    }

    /// A host with the demo's cards, connected to a `ClosingDaemon` that has placed one menu card
    /// with a Quit button.
    private func connectToClosingDaemon() throws -> (ScreenHost, CardDeck, ClosingDaemon) {
        var fds: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        let daemon = ClosingDaemon(socket: UnixSocket(descriptor: fds[0]))
        try daemon.greet()
        let host = try ScreenHost.connect(descriptor: fds[1], name: "walk-end", provides: [MenuScreen.kind])
        let deck = CardDeck()
        deck.register(on: host)
        daemon.start()
        return (host, deck, daemon)
    }
}

/// The daemon's end of a socket pair, on a thread: answers every `Ping` until the host's first
/// `Output`, then writes `Shutdown(APP_FINISHED)` and closes, leaving any `Ping` after it unanswered.
private final class ClosingDaemon: @unchecked Sendable {
    // @unchecked: the thread alone touches the socket after `start()`; `outputs` is read after `join()`.
    private let socket: UnixSocket
    private var seq: UInt64 = 0
    private(set) var outputs = 0
    private let done = DispatchSemaphore(value: 0)

    init(socket: UnixSocket) { self.socket = socket }

    /// Queues `Welcome` and the menu card's `Place` for the host to read in its handshake and first barrier.
    func greet() throws {
        var welcome = Flowd_V1_Welcome()
        welcome.version = 1
        welcome.connectionID = 1
        welcome.server = "closing fake flowd"
        welcome.maxFrameSize = UInt32(WireProtocol.defaultMaxFrameSize)
        welcome.app = "launcher"
        try send(.welcome(welcome), replyTo: 1)
        var window = Flowd_V1_PathElement()
        window.kind = .window
        window.id = 1
        var placement = Flowd_V1_Placement()
        placement.path = [window]
        placement.visible = true
        placement.topMost = true
        var place = Flowd_V1_Place()
        place.screenID = 2
        place.kind = MenuScreen.kind
        place.state = try .json(encoding: CardState(title: "Menu", buttons: ["Quit"]))
        place.placement = placement
        place.serial = 1
        place.flowID = 1
        place.flowType = "LauncherFlow"
        try send(.place(place))
    }

    func start() {
        Thread { [self] in
            serve()
            done.signal()
        }.start()
    }

    func join() { done.wait() }

    private func serve() {
        var decoder = FrameDecoder()
        defer { socket.close() }
        do {
            while true {
                while let envelope = try decoder.nextEnvelope() {
                    switch envelope.body {
                    case .ping(let ping):
                        var pong = Flowd_V1_Pong()
                        pong.nonce = ping.nonce
                        try send(.pong(pong), replyTo: envelope.seq)
                    case .output:
                        outputs += 1
                        var shutdown = Flowd_V1_Shutdown()
                        shutdown.reason = .appFinished
                        shutdown.message = "the app finished"
                        try send(.shutdown(shutdown))
                        return
                    default:
                        break
                    }
                }
                let bytes = try socket.read(timeoutMilliseconds: 10_000)
                if bytes.isEmpty { return }
                decoder.append(bytes)
            }
        } catch {
            Issue.record("the fake daemon failed: \(error)")
        }
    }

    private func send(_ body: Flowd_V1_Envelope.OneOf_Body, replyTo: UInt64 = 0) throws {
        seq += 1
        try socket.write(FrameEncoder.encode(Flowd_V1_Envelope(body, seq: seq, replyTo: replyTo)))
    }
}

/// Lines a runner logged.
private final class WalkLines {
    var all: [String] = []
    func append(_ line: String) { all.append(line) }
}
