import Foundation
import Testing
import FlowdTestSupport

/// The screen contract from the real binaries: `flowctl describe` asks a running flowd, and says
/// what `flowd describe APP --json` says without one; the warning for a screen no host provides.
@Suite("describe")
struct DescribeTests {
    @Test func flowctlDescribeAnswersWhatFlowdDescribePrints() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial", "--no-state"])
        let asked = try ProductRun.run("flowctl", ["describe", "--socket", daemon.socketPath])
        #expect(asked.status == 0, "\(asked.stderr)")
        let printed = try ProductRun.run("flowd", ["describe", "tutorial", "--json"])
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(asked.stdout == printed.stdout)
        let contract = try JSONSerialization.jsonObject(with: Data(asked.stdout.utf8)) as? [String: Any]
        #expect((contract?["screens"] as? [[String: Any]])?.compactMap { $0["kind"] as? String } == ["tutorial"])

        let one = try ProductRun.run("flowctl", ["describe", "--kind", "tutorial", "--socket", daemon.socketPath])
        #expect(one.status == 0)
        #expect(one.stdout.hasPrefix(#"{"kind":"tutorial","output_content_type":"application/protobuf; proto=flowd.demo.v1.CardOutput","outputs":[{"example":{"didPressButton":{"index":0}}"#))
        let missing = try ProductRun.run("flowctl", ["describe", "--kind", "cart", "--socket", daemon.socketPath])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("app tutorial has no kind 'cart' with a contract; it has: tutorial"))
    }

    @Test func aScreenNoHostProvidesIsLoggedAndCounted() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial", "--no-state", "--host-wait", "0.2"])
        #expect(daemon.waitForLog("no host provides kind tutorial"), "\(daemon.logText)")
        let stats = try ProductRun.run("flowctl", ["stats", "--json", "--socket", daemon.socketPath])
        let object = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
        #expect("\(object?["screensWithoutHost"] ?? "")" == "1")
    }
}
