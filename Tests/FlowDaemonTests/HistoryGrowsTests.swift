import DemoApps
import FlowApp
import FlowDaemon
import FlowDaemonTesting
import FlowdCommand
import FlowdTestSupport
import Foundation
import Testing

/// An app whose flows cannot name their places says that its history will grow (docs/restore.md,
/// "Long sessions"): `deep-stack`, whose one flow handles no links, against the launcher, whose
/// flows all do. And `Stats.server` names the program the daemon runs as.
@Suite struct HistoryGrowsTests {
    static func start(_ name: String, journal: Bool, log: LogLines) throws -> EmbeddedDaemon {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try EmbeddedDaemon(app: try EmbeddedDaemonTests.app(name), statePath: journal ? directory + "/\(name).journal" : nil, logger: log.logger)
    }

    static func growthLines(_ log: LogLines) -> [String] { log.lines.filter { $0.contains("will keep its whole history") } }

    @Test func deepStackSaysOnceAtStartAndInStatsWhichFlowsDoNotHandleLinks() throws {
        let log = LogLines()
        let daemon = try Self.start("deep-stack", journal: true, log: log)
        let lines = Self.growthLines(log)
        #expect(lines.count == 1, "\(log.lines)")
        #expect(lines.first?.hasPrefix("<5>") == true, "at notice: \(lines)")
        #expect(lines.first?.contains("the journal of deep-stack will keep its whole history, growing with every input (a restart replays all of it): DeepStackFlow does not handle links") == true, "\(lines)")
        #expect(lines.first?.contains("make each LinkHandling") == true)
        #expect(daemon.daemon.stats().flowsNotHandlingLinks == ["DeepStackFlow"])
        // Said once: inputs do not repeat it.
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer + host.readBodies(), on: host)
        #expect(Self.growthLines(log).count == 1)
    }

    @Test func theLauncherSaysNothing() throws {
        let log = LogLines()
        let daemon = try Self.start("launcher", journal: true, log: log)
        #expect(Self.growthLines(log).isEmpty, "\(log.lines)")
        #expect(daemon.daemon.stats().flowsNotHandlingLinks.isEmpty)
    }

    @Test func withoutAJournalNothingGrowsAndNothingIsSaid() throws {
        let log = LogLines()
        let daemon = try Self.start("deep-stack", journal: false, log: log)
        #expect(Self.growthLines(log).isEmpty, "\(log.lines)")
        // Stats still name the flows: they are what a journal would keep whole.
        #expect(daemon.daemon.stats().flowsNotHandlingLinks == ["DeepStackFlow"])
    }

    @Test func describeNamesTheFlowsTheAppStartsThatDoNotHandleLinks() {
        let flowd = FlowdCommand(name: "flowd", apps: BuiltInApps.all)
        func describe(_ arguments: [String]) -> String {
            let printed = Printed()
            #expect(flowd.run(["describe"] + arguments) { printed.append($0) } == 0)
            return printed.text
        }
        let deep = describe(["deep-stack"])
        #expect(deep.contains("\n\nflows that do not handle links: DeepStackFlow\n  while one runs, the journal keeps its whole history"), "\(deep)")
        let launcher = describe(["launcher"])
        #expect(!launcher.contains("do not handle links"), "\(launcher)")
        #expect(!describe(["deep-stack", "--json"]).contains("handle links"), "the JSON is the contract alone")
    }

    @Test func statsNameTheProgramTheDaemonRunsAs() {
        #expect(EmbeddedDaemon(app: nil).daemon.stats().server == "flowd")
        #expect(EmbeddedDaemon(app: nil) { $0.program = "shopd" }.daemon.stats().server == "shopd")
    }
}
