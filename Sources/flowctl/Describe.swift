import ArgumentParser
import FlowControl
import FlowWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

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
        guard let screens = Self.screens(in: description.contract.data) else {
            fail(.unexpected("the daemon's Description is not a contract: \(String(decoding: description.contract.data, as: UTF8.self))"))
        }
        guard let screen = screens.first(where: { $0["kind"] == .string(kind) }) else {
            let kinds = screens.compactMap { screen -> String? in
                if case .string(let name)? = screen["kind"] { return name }
                return nil
            }.joined(separator: ", ")
            fail("app \(description.app) has no kind '\(kind)' with a contract; it has: \(kinds)")
        }
        print(UntypedJSON.object(screen).text)
    }

    /// The contract's screens (`{"screens":[{...},...]}`), or nil when it is not one.
    static func screens(in contract: Data) -> [[String: UntypedJSON]]? {
        guard case .object(let members)? = try? UntypedJSON(parsing: contract), case .array(let list)? = members["screens"] else { return nil }
        let screens = list.compactMap { screen -> [String: UntypedJSON]? in
            if case .object(let members) = screen { return members }
            return nil
        }
        return screens.count == list.count ? screens : nil
    }
}
