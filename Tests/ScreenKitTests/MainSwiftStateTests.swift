import FlowdTestSupport
import Foundation
import Testing

/// docs/screenkit.md, "State in a `main.swift` (Swift 6)": the page's two `main.swift` files,
/// type-checked as top-level code in the Swift 6 mode against the built ScreenKit. The refused one
/// fails with the error the page quotes; the state object compiles.
@Suite struct MainSwiftStateTests {
    func typecheckAsMain(_ snippet: String) throws -> (status: Int32, output: String) {
        let code = try #require(try DocSnippet.onPage(snippet, page: "docs/screenkit.md"), "docs/screenkit.md has no snippet \(snippet)")
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try code.write(toFile: directory + "/main.swift", atomically: true, encoding: .utf8)
        return try DocSnippet.typecheck([directory + "/main.swift"])
    }

    @Test func aTopLevelVarUsedFromAHandlerIsRefused() throws {
        let result = try typecheckAsMain("main-swift-refused")
        #expect(result.status != 0)
        #expect(result.output.contains("main actor-isolated var 'updates' can not be mutated from a nonisolated context"), "\(result.output)")
    }

    @Test func aStateObjectCapturedByTheHandlersCompiles() throws {
        let result = try typecheckAsMain("main-swift-state")
        #expect(result.status == 0, "\(result.output)")
    }
}
