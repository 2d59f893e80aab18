import FlowdTestSupport
import Foundation
import Testing

/// Code written against 0.1.0's API, type-checked against the modules just built: each removed or
/// moved declaration fails with the message that says what to write instead (the unavailable stubs
/// in each module's Migration.swift, docs/CHANGELOG.md), and the new spelling of the same code
/// compiles, so a failure here is the stub's and not the harness's.
@Suite(.serialized) struct MigrationStubTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `swiftc -typecheck` of `source` against the built modules: its exit status and diagnostics.
    func typecheck(_ source: String) throws -> (status: Int32, diagnostics: String) {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/main.swift"
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        let modules = productsDirectory.appendingPathComponent("Modules").path
        var arguments = ["swiftc", "-typecheck", "-I", modules, "-module-cache-path", directory + "/cache"]
        // The system libraries' module maps (FlowDaemon imports UVKit and FlowJournal, which import them).
        for library in ["CLibUV", "CSQLite"] {
            arguments += ["-Xcc", "-fmodule-map-file=" + Self.root.appendingPathComponent("Sources/\(library)/module.modulemap").path]
        }
        let run = try ProductRun.run(executable: URL(fileURLWithPath: "/usr/bin/env"), arguments + [file])
        return (run.status, run.stdout + run.stderr)
    }

    /// Expects `old` to fail with every one of `messages`, and `new` to compile.
    func expect(old: String, failsWith messages: [String], new: String) throws {
        let broken = try typecheck(old)
        #expect(broken.status != 0, "0.1.0's spelling compiled:\n\(broken.diagnostics)")
        for message in messages {
            #expect(broken.diagnostics.contains(message), "no \"\(message)\" in:\n\(broken.diagnostics)")
        }
        #expect(!broken.diagnostics.contains("failed to produce diagnostic"))
        let fixed = try typecheck(new)
        #expect(fixed.status == 0, "the new spelling does not compile:\n\(fixed.diagnostics)")
    }

    static let child = """
        final class Child: Flow {
            typealias RequiredContext = NavigationStack
            typealias Output = String
            func start(_ flow: FlowContext<Child>) {}
        }
        """

    @Test func theOneClosureSubFlowStartSaysWhichHandlersToWrite() throws {
        try expect(old: """
            import FlowKit
            \(Self.child)
            final class Parent: Flow {
                typealias RequiredContext = NavigationStack
                func start(_ flow: FlowContext<Parent>) {
                    flow.start(Child(), .pushed(in: flow.context)) { event in
                        switch event {
                        case .output(let text): print(text)
                        case .finished(_, let dismisser): dismisser.dismiss()
                        case .ended: break
                        }
                    }
                }
            }
            """,
            failsWith: ["'start(_:_:handler:)' is unavailable", "onOutput:", "onFinish:", "onEnd:"],
            new: """
            import FlowKit
            \(Self.child)
            final class Parent: Flow {
                typealias RequiredContext = NavigationStack
                func start(_ flow: FlowContext<Parent>) {
                    flow.start(Child(), .pushed(in: flow.context), onOutput: { text in print(text) },
                               onFinish: { _, dismisser in dismisser.dismiss() }, onEnd: { _ in })
                }
            }
            """)
    }

    @Test func screenDescriptionSaysScreenModule() throws {
        try expect(old: """
            import ScreenKit
            enum Greeting: ScreenDescription {
                static let kind = "greeting"
                struct State: Codable, Sendable { var name: String }
                enum Output: Codable, Sendable { case done }
            }
            """,
            failsWith: ["'ScreenDescription' has been renamed to 'ScreenModule'", "import FlowKit"],
            new: """
            import FlowKit
            import ScreenKit
            enum Greeting: ScreenModule {
                static let kind = "greeting"
                struct State: Codable, Sendable { var name: String }
                enum Output: Codable, Sendable { case done }
            }
            """)
    }

    @Test func appAndScreenFactoryFromTheDaemonSayFlowApp() throws {
        try expect(old: """
            import FlowDaemon
            import FlowKit
            final class Root: Flow {
                typealias RequiredContext = Presenter
                func start(_ flow: FlowContext<Root>) {}
            }
            let screens: [String: ScreenFactory] = ["card": .attached]
            let app = App(name: "shop", screens: screens, placer: .windowRoot) { Root() }
            """,
            failsWith: ["'ScreenFactory' is unavailable: ScreenFactory moved to the FlowApp module",
                        "'App' is unavailable: App moved to the FlowApp module"],
            // Importing both modules, as a custom daemon does, is not ambiguous.
            new: """
            import FlowApp
            import FlowDaemon
            import FlowKit
            final class Root: Flow {
                typealias RequiredContext = Presenter
                func start(_ flow: FlowContext<Root>) {}
            }
            let screens: [String: ScreenFactory] = ["card": .attached]
            let app = App(name: "shop", screens: screens, placer: .windowRoot) { Root() }
            """)
    }

    /// The rest of what docs/CHANGELOG.md lists as removed or moved, in one file of 0.1.0 code.
    @Test func theOtherRemovedDeclarationsSayWhatToWriteInstead() throws {
        try expect(old: """
            import FlowDaemon
            import FlowKit
            import FlowKitTesting
            import ScreenKit
            final class Recorder: ScreenTransport {}
            func make(_ transport: Recorder) throws {
                let runtime = FlowRuntime(transport: transport)
                runtime.observer = { print($0) }
                try runtime.terminate(flow: FlowID(rawValue: 1), animated: false) { report in print(report) }
                runtime.terminateAll(animated: false) { report in print(report) }
                _ = FakeScreenTransport(acknowledgesAutomatically: true)
                let where_: ScreenKit.Placement? = nil
                let change: ScreenKit.PlacementChange? = nil
                print(where_ as Any, change as Any, FlowDaemon.FlowdVersion.string)
            }
            """,
            failsWith: ["'ScreenTransport' is unavailable: the runtime no longer calls a transport",
                        "'init(transport:)' is unavailable: use FlowRuntime(codec:)",
                        "'observer' is unavailable: lifecycle events are RuntimeEffect.flow effects",
                        "'terminate(flow:animated:completion:)' is unavailable",
                        "'terminateAll(animated:completion:)' is unavailable",
                        "'init(acknowledgesAutomatically:)' is unavailable: the fake screens are made over their runtime",
                        "'Placement' is unavailable: a HostedScreen's placement is FlowKit's Placement",
                        "'PlacementChange' is unavailable: onPlacementChanged gets FlowKit's PlacementChange",
                        "'FlowdVersion' is unavailable: FlowdVersion moved to the FlowWire module"],
            new: """
            import FlowKit
            import FlowKitTesting
            import FlowWire
            import ScreenKit
            func make() throws {
                let runtime = FlowRuntime()
                for effect in runtime.takeEffects() { print(effect) }
                runtime.terminateAll(animated: false)
                _ = FakeScreenTransport(runtime: runtime, acknowledgesAutomatically: true)
                let where_: Placement? = nil
                let change: PlacementChange? = nil
                print(where_ as Any, change as Any, FlowdVersion.string)
            }
            """)
    }
}
