import ArgumentParser
import FlowControl
import FlowWire
import Foundation

/// `flowctl describe`: the running app's screen contract.
struct Describe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the running app's screen kinds with the JSON Schema and an example of their State and every Output case.",
        discussion: """
            The same JSON as `flowd describe APP --json` (docs/demo.md, Screen contracts), from the daemon \
            that runs the app, so a screen host can be written or checked against what it really sends.

            Examples:
              flowctl describe
              flowctl describe --kind login
              flowctl describe | jq '.screens[] | .kind'
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .long, help: ArgumentHelp("Only this kind's contract (one JSON object).", valueName: "kind"))
    var kind: String?

    func run() throws {
        let client = connection.connect()
        defer { client.close() }
        let description: Flowd_V1_AppContract
        do {
            description = try client.describe(timeoutMilliseconds: Int32(connection.timeout * 1000))
        } catch {
            fail(error)
        }
        guard let kind else {
            print(String(decoding: description.contract.data, as: UTF8.self))
            return
        }
        guard let contract = try? JSONSerialization.jsonObject(with: description.contract.data) as? [String: Any],
              let screens = contract["screens"] as? [[String: Any]]
        else { fail(.unexpected("the daemon's Description is not a contract: \(String(decoding: description.contract.data, as: UTF8.self))")) }
        guard let screen = screens.first(where: { $0["kind"] as? String == kind }) else {
            let kinds = screens.compactMap { $0["kind"] as? String }.joined(separator: ", ")
            fail("app \(description.app) has no kind '\(kind)' with a contract; it has: \(kinds)")
        }
        let data = try JSONSerialization.data(withJSONObject: screen, options: [.sortedKeys, .withoutEscapingSlashes])
        print(String(decoding: data, as: UTF8.self))
    }
}
