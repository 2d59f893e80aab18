import DemoApps
import FlowApp
import FlowDaemon
import FlowDaemonTesting
import FlowKit
import FlowWire
import Foundation
import Testing

/// The per-iteration bound (docs/daemon.md, "Fairness"): a connection gets at most
/// `inputsPerTurn` flow inputs and `framesPerTurn` frames handled per loop iteration; the rest
/// waits in its socket for its next turn, and a quiet connection's input is handled in the
/// iteration it arrives in, before the flood's remainder. Counted on the embedded daemon one
/// iteration at a time (`runIteration()`), never timed.
@Suite("Fairness under a flood")
struct FairnessTests {
    /// App `bench-echo` with `screens` screens `echo-0`...: every output of a screen updates it
    /// with the count of its outputs so far as the title.
    static func echo(screens: Int, _ configure: @escaping (inout DaemonConfiguration) -> Void = { _ in }) -> EmbeddedDaemon {
        let app = App(name: "bench-echo", modules: (0..<screens).map(BenchEchoFlow.module), placer: windowRoot) {
            BenchEchoFlow(screens: screens)
        }
        return EmbeddedDaemon(app: app, configure: configure)
    }

    /// A host of `echo-<index>`, handshaken, its screen placed and acknowledged; returns it and the screen.
    static func host(_ daemon: EmbeddedDaemon, index: Int) throws -> (EmbeddedConnection, UInt64) {
        let connection = daemon.connect()
        let answer = connection.hello(role: .screenHost, name: "echo-\(index)", provides: ["echo-\(index)"])
        let place = try #require(answer.compactMap { body -> Flowd_V1_Place? in
            if case .place(let place) = body { return place }
            return nil
        }.first, "no Place for echo-\(index) in \(answer)")
        connection.ack(place.screenID, serial: place.serial)
        return (connection, place.screenID)
    }

    static func output(_ screen: UInt64) -> Flowd_V1_Envelope.OneOf_Body {
        var output = Flowd_V1_Output()
        output.screenID = screen
        output.payload = .json(Data(#"{"didPressButton":{"index":0}}"#.utf8))
        return .output(output)
    }

    /// The titles of the Updates among `bodies`, in order; fails on an Error.
    static func updateTitles(_ bodies: [Flowd_V1_Envelope.OneOf_Body]) -> [Int] {
        bodies.compactMap { body -> Int? in
            if case .error(let error) = body { Issue.record("the daemon answered with an error: \(error.message)") }
            guard case .update(let update) = body,
                  let state = try? CardState(binaryPayload: update.state.data) else { return nil }
            return Int(state.title)
        }
    }

    @Test func aFloodingHostGetsAtMostItsInputBudgetPerIterationAndLosesNothing() throws {
        let budget = DaemonConfiguration.Defaults.inputsPerTurn
        let daemon = Self.echo(screens: 1)
        let (flooder, screen) = try Self.host(daemon, index: 0)
        let flood = 5 * budget + 3
        flooder.write(Array(repeating: Self.output(screen), count: flood))
        var titles: [Int] = []
        var iterations = 0
        var more = true
        while more {
            more = daemon.runIteration()
            iterations += 1
            let handled = Self.updateTitles(flooder.readBodies(settle: false))
            #expect(handled.count <= budget, "iteration \(iterations) handled \(handled.count) outputs of one host")
            titles += handled
            try #require(iterations < 1_000)
        }
        #expect(titles == Array(1...flood), "every output handled once, in order")
        #expect(iterations >= 6, "\(flood) outputs need 6 turns of \(budget)")
        #expect(!flooder.isClosed, "back-pressure, not a disconnection")
        #expect(daemon.finish().connections == 1)
    }

    @Test func readsWithinOneIterationShareTheConnectionsBudget() throws {
        // libuv may call the read callback several times in one iteration (a read per 64 KiB).
        let daemon = Self.echo(screens: 1) { $0.inputsPerTurn = 4 }
        let (flooder, screen) = try Self.host(daemon, index: 0)
        for _ in 0..<3 { flooder.write(Array(repeating: Self.output(screen), count: 3)) }
        daemon.runIteration()
        #expect(Self.updateTitles(flooder.readBodies(settle: false)) == [1, 2, 3, 4])
        daemon.run()
        #expect(Self.updateTitles(flooder.readBodies()) == Array(5...9))
    }

    @Test func aQuietHostIsHandledInTheIterationItArrivesNotAfterTheFlood() throws {
        let daemon = Self.echo(screens: 2) { $0.inputsPerTurn = 4 }
        let (flooder, floodScreen) = try Self.host(daemon, index: 0)
        let (quiet, quietScreen) = try Self.host(daemon, index: 1)
        flooder.write(Array(repeating: Self.output(floodScreen), count: 40))
        daemon.runIteration()
        #expect(Self.updateTitles(flooder.readBodies(settle: false)) == [1, 2, 3, 4])
        // The flood is backlogged; the quiet host's output arrives now and goes out this iteration.
        quiet.write([Self.output(quietScreen)])
        daemon.runIteration()
        #expect(Self.updateTitles(quiet.readBodies(settle: false)) == [1], "the quiet host is answered in the iteration its output came")
        #expect(Self.updateTitles(flooder.readBodies(settle: false)) == [5, 6, 7, 8], "while the flood got one more turn")
        daemon.run()
        #expect(Self.updateTitles(flooder.readBodies()) == Array(9...40))
    }

    @Test func framesBeyondTheFrameBudgetWaitForTheNextIteration() throws {
        let daemon = Self.echo(screens: 1) { $0.framesPerTurn = 8 }
        let (host, _) = try Self.host(daemon, index: 0)
        var ping = Flowd_V1_Ping()
        ping.nonce = 7
        host.write(Array(repeating: .ping(ping), count: 20))
        var perIteration: [Int] = []
        while true {
            let more = daemon.runIteration()
            perIteration.append(host.readBodies(settle: false).filter { if case .pong = $0 { true } else { false } }.count)
            if !more { break }
        }
        #expect(perIteration.filter { $0 > 0 } == [8, 8, 4])
    }
}
