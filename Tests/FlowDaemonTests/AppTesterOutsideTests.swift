import FlowdTestSupport
import Foundation
import Testing

/// The AppTester tests are an app package's tests: AppTesterTests.swift type-checks alone against
/// the built modules without the package's access (public API only). And the docs show the code the
/// suite compiles: FlowDaemonTesting's landing page and docs/flows.md's private-field trap.
@Suite struct AppTesterOutsideTests {
    @Test func theAppTesterTestsUseOnlyPublicAPI() throws {
        let file = DocSnippet.root.appendingPathComponent("Tests/FlowDaemonTests/AppTesterTests.swift").path
        let result = try DocSnippet.typecheck([file])
        #expect(result.status == 0, "AppTesterTests.swift must type-check with public API alone:\n\(result.output)")
    }

    @Test(arguments: [
        ("app-tester", "Sources/FlowDaemonTesting/FlowDaemonTesting.docc/FlowDaemonTesting.md", "Tests/FlowDaemonTests/AppTesterTests.swift"),
        ("private-field-trap", "docs/flows.md", "Tests/FlowDaemonTests/PrivateFieldSnippets.swift"),
        ("private-field-fix", "docs/flows.md", "Tests/FlowDaemonTests/PrivateFieldSnippets.swift"),
        ("private-field-test", "docs/flows.md", "Tests/FlowDaemonTests/PrivateFieldSnippets.swift"),
    ])
    func thePageShowsTheCompiledSnippet(name: String, page: String, source: String) throws {
        let onPage = try #require(try DocSnippet.onPage(name, page: page), "\(page) has no snippet \(name)")
        let compiled = try #require(try DocSnippet.inSource(name, source: source), "\(source) has no region \(name)")
        #expect(onPage == compiled, "\(page)'s \(name) differs from \(source)")
    }
}
