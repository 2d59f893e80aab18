import FlowdTestSupport
import FlowWire
import Foundation
import Testing

/// Which displays exist comes from the connections that provide them (`ProvideDisplays`): the
/// daemon's list is their union, it goes with the connection, the runtime learns it as a journaled
/// input (so a restart keeps the last word), and a bad list closes the connection that sent it.
@Suite("provided displays")
struct ProvidedDisplaysTests {
    static func provide(_ displays: [(id: String, name: String, width: UInt32, height: UInt32)]) -> Flowd_V1_Envelope.OneOf_Body {
        .provideDisplays(Flowd_V1_ProvideDisplays.with { message in
            message.displays = displays.map { display in
                Flowd_V1_ProvidedDisplay.with {
                    $0.id = display.id
                    $0.name = display.name
                    $0.width = display.width
                    $0.height = display.height
                }
            }
        })
    }

    static func displays(_ socket: String) throws -> [String]? {
        let debug = try RawClient(path: socket)
        try debug.handshake(role: .debug)
        let tree = try debug.tree()
        return tree.hasDisplays ? tree.displays.displays.map { "\($0.id) \($0.name) \($0.width)x\($0.height)" } : nil
    }

    @Test func theDisplaysAreTheUnionOfWhatConnectionsProvideAndGoWithThem() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "till"])
        #expect(try Self.displays(daemon.socketPath) == nil, "none said yet: a window may open on any")

        let shell = try RawClient(path: daemon.socketPath)
        try shell.handshake(role: .display, name: "shell")
        try shell.send(Self.provide([("main", "HEADLESS-1", 1280, 800), ("customer", "HEADLESS-2", 800, 480)]))
        _ = try shell.ping()
        #expect(try Self.displays(daemon.socketPath) == ["customer HEADLESS-2 800x480", "main HEADLESS-1 1280x800"])

        // A screen host may provide one too (a second monitor it draws on); an id both provide is the older connection's.
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: [])
        try host.send(Self.provide([("rear", "DP-1", 1920, 1080), ("main", "elsewhere", 1, 1)]))
        _ = try host.ping()
        #expect(try Self.displays(daemon.socketPath) == ["customer HEADLESS-2 800x480", "main HEADLESS-1 1280x800", "rear DP-1 1920x1080"])

        // A new list replaces the connection's own; an empty one withdraws them.
        try shell.send(Self.provide([("main", "HEADLESS-1", 1280, 800)]))
        _ = try shell.ping()
        #expect(try Self.displays(daemon.socketPath) == ["main HEADLESS-1 1280x800", "rear DP-1 1920x1080"])
        try host.send(Self.provide([]))
        _ = try host.ping()
        #expect(try Self.displays(daemon.socketPath) == ["main HEADLESS-1 1280x800"])

        // They go with the connection: none provided is known, and said.
        shell.socket.close()
        var left = try Self.displays(daemon.socketPath)
        for _ in 0..<100 where left != [] { // the close is read in a later loop iteration
            usleep(50_000)
            left = try Self.displays(daemon.socketPath)
        }
        #expect(left == [])
        #expect(daemon.waitForLog("displays=none [FlowDaemon] displays changed"), "\(daemon.logText)")
        let flowctl = try ProductRun.run("flowctl", ["tree", "--socket", daemon.socketPath])
        #expect(flowctl.stdout.contains("displays: none provided"), "\(flowctl.stdout)")
    }

    @Test func theRuntimeKeepsTheLastDisplaysThroughARestartAndTheHistorySaysWhen() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try DaemonProcess(arguments: ["--app", "till"], directory: directory)
        let shell = try RawClient(path: daemon.socketPath)
        try shell.handshake(role: .display, name: "shell")
        try shell.send(Self.provide([("main", "HEADLESS-1", 1280, 800), ("customer", "HEADLESS-2", 800, 480)]))
        _ = try shell.ping() // the Pong says the inputs before it are journaled
        let history = try ProductRun.run("flowctl", ["history", "--socket", daemon.socketPath])
        #expect(history.stdout.contains("displays customer (HEADLESS-2, 800×480), main (HEADLESS-1, 1280×800)"), "\(history.stdout)")

        daemon.signal(SIGKILL)
        _ = daemon.waitForExit()
        let again = try DaemonProcess(arguments: ["--app", "till"], directory: directory)
        #expect(again.waitForLog("restored the app from its journal"))
        #expect(try Self.displays(again.socketPath) == ["customer HEADLESS-2 800x480", "main HEADLESS-1 1280x800"],
                "until a connection provides again, the journal's last word stands")
    }

    @Test func aCheckpointKeepsTheDisplays() throws {
        let walk = try HistoryIntegrationTests.walk(steps: 30, seed: 5, arguments: ["--compact-after", "8"],
                                                    provide: Self.provide([("main", "HDMI-A-1", 1920, 1080)]))
        #expect(walk.daemon.logText.contains("compacted the journal to a checkpoint"), "\(walk.daemon.logText)")
        #expect(try walk.debug.history().fromCheckpoint)
        walk.daemon.signal(SIGKILL)
        _ = walk.daemon.waitForExit()
        let again = try DaemonProcess(arguments: ["--app", "launcher", "--compact-after", "8"], environment: ["FLOWD_PYTHON_SCREENS": "0"],
                                      directory: walk.daemon.directory)
        #expect(again.waitForLog("restored the app from its journal"))
        #expect(try Self.displays(again.socketPath) == ["main HDMI-A-1 1920x1080"], "the compacted journal says the displays after its checkpoint")
    }

    @Test(arguments: [
        ([("", "x", 1, 1)], "1 to 64 bytes"),
        ([("a", "x", 1, 1), ("a", "y", 2, 2)], "listed twice"),
        ([(String(repeating: "i", count: 65), "", 0, 0)], "1 to 64 bytes"),
        ([("a", String(repeating: "n", count: 65), 0, 0)], "at most 64"),
        ((0..<17).map { ("d\($0)", "", UInt32(0), UInt32(0)) }, "at most 16"),
    ] as [([(String, String, UInt32, UInt32)], String)])
    func aBadListClosesTheConnectionThatSentItAndChangesNothing(_ displays: [(String, String, UInt32, UInt32)], _ said: String) throws {
        let daemon = try DaemonProcess(arguments: ["--app", "till"])
        let shell = try RawClient(path: daemon.socketPath)
        try shell.handshake(role: .display)
        let seq = try shell.send(Self.provide(displays.map { (id: $0.0, name: $0.1, width: $0.2, height: $0.3) }))
        let frames = try shell.receiveUntilClosed()
        let error = try #require(frames.compactMap(\.error).first)
        #expect(error.code == .badPayload && error.fatal)
        #expect(error.message.contains(said), "\(error.message)")
        #expect(frames.contains { $0.replyTo == seq })
        #expect(try Self.displays(daemon.socketPath) == nil)
    }

    @Test func aDebugClientProvidesNoDisplay() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "till"])
        let debug = try RawClient(path: daemon.socketPath)
        try debug.handshake(role: .debug)
        try debug.send(Self.provide([("main", "", 0, 0)]))
        let error = try #require(try debug.receiveUntilClosed().compactMap(\.error).first)
        #expect(error.code == .unexpectedMessage && error.fatal)
        #expect(error.message.contains("ProvideDisplays is for displays and screen hosts"), "\(error.message)")
    }
}
