import FlowDaemon
import FlowDaemonTesting
import FlowWire
import Foundation
import Testing

/// What a peer can make flowd log (issue 46): a line per injection is rate-limited, and a line
/// quotes a bounded part of what a peer sent.
@Suite("Log bounds")
struct LogBoundTests {
    @Test func aFloodOfInjectionsIsAFewLinesThatSayHowManyWereLeftOut() throws {
        let log = LogLines()
        let (daemon, _, screen) = try OversizeFrameTests.notes(log: log)
        let client = daemon.connect(pid: 55)
        _ = client.hello(role: .debug, name: "injector")
        for index in 0..<200 {
            var inject = Flowd_V1_InjectOutput()
            inject.screenID = screen
            inject.payload = .json(try JSONEncoder().encode(NoteScreen.Output.set(text: "\(index)")))
            client.send(.injectOutput(inject))
        }
        let results = client.readBodies().filter { if case .commandResult = $0 { true } else { false } }
        #expect(results.count == 200, "every injection is applied and answered")
        let lines = log.lines.filter { $0.contains("debug client injected an output") }
        #expect(lines.count <= 10, "200 injections in one second are at most 10 lines: \(lines.count)")
        daemon.advanceTime(by: 2_000)
        var inject = Flowd_V1_InjectOutput()
        inject.screenID = screen
        inject.payload = .json(try JSONEncoder().encode(NoteScreen.Output.set(text: "later")))
        client.send(.injectOutput(inject))
        let later = log.lines.filter { $0.contains("debug client injected an output") }
        #expect(later.count == lines.count + 1)
        #expect(later.last?.contains("190 similar lines left out") == true, "\(later.last ?? "")")
    }

    @Test func aHelloOfAMegabyteMakesNoLongLogLine() throws {
        let log = LogLines()
        let (daemon, _, _) = try OversizeFrameTests.notes(log: log)
        let host = daemon.connect()
        let kinds = (0..<20_000).map { "kind-\($0)-" + String(repeating: "k", count: 20) }
        _ = host.hello(role: .screenHost, name: String(repeating: "N", count: 300_000), provides: kinds)
        #expect(!log.lines.isEmpty)
        let longest = log.lines.map(\.utf8.count).max() ?? 0
        #expect(longest < 4_096, "the longest line is \(longest) bytes")
    }
}
