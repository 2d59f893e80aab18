import Foundation
import Testing

/// Proves that a flow needing a navigation stack cannot be started with a placer that only gives a
/// presenting context, that contexts cannot be forged from ids, and that a sub-flow's end must be
/// handled: compiles snippets against the built FlowKit module with `swiftc -typecheck`.
@Suite("Placer contexts are checked at compile time")
struct PlacerTypeCheckTests {
    static let prelude = """
    import FlowKit
    enum S: ScreenModule {
        static let kind = "s"
        struct State: Codable {}
        enum Output: Codable { case x }
    }
    final class NeedsStack: Flow {
        typealias RequiredContext = NavigationStack
        func start(_ flow: FlowContext<NeedsStack>) { flow.show(S.self, .init()) }
    }
    final class NeedsWindow: Flow {
        typealias RequiredContext = Window
        func start(_ flow: FlowContext<NeedsWindow>) { flow.show(S.self, .init()) }
    }
    final class Chatty: Flow {
        typealias RequiredContext = Presenter
        typealias Output = Int
        func start(_ flow: FlowContext<Chatty>) { flow.show(S.self, .init()) }
    }
    final class Parent: Flow {
        typealias RequiredContext = Presenter
        func start(_ flow: FlowContext<Parent>) {
            let screen = flow.show(S.self, .init())
            BODY
        }
    }
    """

    @Test(arguments: [
        "flow.start(NeedsStack(), presented(on: screen).withNavigationEmbedding()) { _, _ in } onEnd: { _ in }",
        """
        if let stack = flow.place(S.self, .init(), presented(on: screen).withNavigationEmbedding()).context {
            flow.start(NeedsStack(), .pushed(in: stack)) { _, _ in } onEnd: { _ in }
        }
        """,
        "flow.start(NeedsStack(), windowRoot.withTabBarEmbedding(count: 2)[1].withNavigationEmbedding()) { _, _ in } onEnd: { _ in }",
        "flow.start(Parent(), .presented(on: screen)) { _, _ in } onEnd: { ending in print(ending) }",
        "flow.start(NeedsWindow(), window(on: \"customer\")) { _, _ in } onEnd: { _ in }",
        "flow.start(NeedsStack(), window(on: \"customer\", whenAbsent: .wait).withNavigationEmbedding()) { _, _ in } onEnd: { _ in }",
        "flow.start(Parent(), .presented(on: screen), onOutput: { _ in }, onFinish: { _, _ in }, onEnd: { _ in })",
    ])
    func correctPlacersTypecheck(_ body: String) throws {
        let result = try typecheck(Self.prelude.replacingOccurrences(of: "BODY", with: body))
        #expect(result.status == 0, "a correct snippet must typecheck, else the failing cases prove nothing: \(result.output)")
    }

    @Test(arguments: [
        "flow.start(NeedsStack(), presented(on: screen)) { _, _ in } onEnd: { _ in }",
        "flow.start(NeedsStack(), .presented(on: screen)) { _, _ in } onEnd: { _ in }",
        "flow.start(NeedsStack(), flow.placer) { _, _ in } onEnd: { _ in }",
        "flow.start(NeedsStack(), windowRoot.withTabBarEmbedding(count: 2)[1]) { _, _ in } onEnd: { _ in }",
    ])
    func presentingPlacersForAStackFlowDoNotCompile(_ body: String) throws {
        try expectRefused(body, naming: "NavigationStack")
    }

    /// A flow that needs a window (`RequiredContext = Window`) takes only a window placer.
    @Test(arguments: [
        "flow.start(NeedsWindow(), presented(on: screen)) { _, _ in } onEnd: { _ in }",
        "flow.start(NeedsWindow(), windowRoot) { _, _ in } onEnd: { _ in }",
        "flow.start(NeedsWindow(), window(on: \"customer\").withNavigationEmbedding()) { _, _ in } onEnd: { _ in }",
    ])
    func otherPlacersForAWindowFlowDoNotCompile(_ body: String) throws {
        try expectRefused(body, naming: "Window")
    }

    private func expectRefused(_ body: String, naming context: String) throws {
        let result = try typecheck(Self.prelude.replacingOccurrences(of: "BODY", with: body))
        #expect(result.status != 0, "the compiler accepted: \(body)")
        #expect(result.output.contains("error:"))
        #expect(result.output.contains(context), "the error should name the required context: \(result.output)")
    }

    /// Contexts come only from placements: an id cannot be turned into a stack, a tab bar or a
    /// presenter, so a flow's required context is always what was really placed.
    @Test(arguments: [
        FailingSnippet("flow.start(NeedsStack(), .pushed(in: NavigationStack(node: screen.id))) { _, _ in } onEnd: { _ in }", "have 'node:'"),
        FailingSnippet("flow.start(NeedsStack(), .root(of: NavigationStack(node: .window))) { _, _ in } onEnd: { _ in }", "have 'node:'"),
        FailingSnippet("let bar = TabBar(node: screen.id); flow.selectTab(0, of: bar)", "have 'node:'"),
        FailingSnippet("flow.start(NeedsWindow(), content(of: Window(node: screen.id))) { _, _ in } onEnd: { _ in }", "have 'node:'"),
        FailingSnippet("flow.show(S.self, .init(), windowRoot.map { _ in Presenter(node: screen.id) })", "have 'node:'"),
        FailingSnippet("flow.show(S.self, .init(), presented(on: screen.id))", "NavigationContext"),
        FailingSnippet("flow.show(S.self, .init(), .presented(on: NodeID.window))", "NavigationContext"),
        FailingSnippet("flow.start(NeedsStack(), .pushed(in: NavigationStack(unplaced: Unplaced()))) { _, _ in } onEnd: { _ in }", "inaccessible"),
    ])
    func forgedContextsDoNotCompile(_ snippet: FailingSnippet) throws {
        let result = try typecheck(Self.prelude.replacingOccurrences(of: "BODY", with: snippet.body))
        #expect(result.status != 0, "the compiler accepted: \(snippet.body)")
        #expect(result.output.contains("error:") && result.output.contains(snippet.reason), "expected an error about \(snippet.reason): \(result.output)")
    }

    /// A sub-flow's end cannot be left unhandled by leaving out a closure: `onFinish` and `onEnd` are
    /// required (and `onOutput` too when the sub-flow has outputs); the one-closure form of 0.1.0 and a lone
    /// trailing `onFinish` are answered with what to write (Migration.swift).
    @Test(arguments: [
        FailingSnippet("flow.start(NeedsStack(), presented(on: screen).withNavigationEmbedding()) { _, _ in }",
                       "a sub-flow needs a handler for each way it can stop"),
        FailingSnippet("flow.start(NeedsStack(), presented(on: screen).withNavigationEmbedding(), onEnd: { _ in })", "missing argument for parameter 'onFinish'"),
        FailingSnippet(
            "flow.start(NeedsStack(), presented(on: screen).withNavigationEmbedding()) { event in guard case .finished = event else { return } }",
            "'start(_:_:handler:)' is unavailable: a sub-flow takes one handler per way it can stop"),
        FailingSnippet("flow.start(Chatty(), .presented(on: screen)) { _, _ in } onEnd: { _ in }", "'Never' be equivalent"),
    ])
    func subFlowsWithoutEndHandlersDoNotCompile(_ snippet: FailingSnippet) throws {
        let result = try typecheck(Self.prelude.replacingOccurrences(of: "BODY", with: snippet.body))
        #expect(result.status != 0, "the compiler accepted: \(snippet.body)")
        #expect(result.output.contains("error:") && result.output.contains(snippet.reason), "expected an error about \(snippet.reason): \(result.output)")
    }

    /// Runs `swiftc -typecheck` on `source` with the built modules on the import path.
    private func typecheck(_ source: String) throws -> (status: Int32, output: String) {
        let modules = try #require(Self.modulesDirectory(), "cannot find the built modules directory (Modules/FlowKit.swiftmodule) near the test bundle")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flowkit-typecheck-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("snippet.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc", "-typecheck", "-swift-version", "6", "-I", modules.path, file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Walks up from the test executable (then from this source file's package) to `Modules/`.
    static func modulesDirectory() -> URL? {
        let fileManager = FileManager.default
        func hasFlowKit(_ url: URL) -> Bool {
            fileManager.fileExists(atPath: url.appendingPathComponent("FlowKit.swiftmodule").path)
        }
        var candidates: [URL] = []
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        for _ in 0..<6 {
            url.deleteLastPathComponent()
            candidates.append(url.appendingPathComponent("Modules"))
            candidates.append(url)
        }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(package.appendingPathComponent(".build/debug/Modules"))
        return candidates.first(where: hasFlowKit)
    }
}

/// A snippet that must not compile, and part of the error the compiler must give.
struct FailingSnippet: Sendable, CustomTestStringConvertible {
    /// The code in the parent flow's `start`.
    let body: String
    /// Part of the expected error (why it does not compile).
    let reason: String
    init(_ body: String, _ reason: String) {
        self.body = body
        self.reason = reason
    }
    var testDescription: String { body }
}
