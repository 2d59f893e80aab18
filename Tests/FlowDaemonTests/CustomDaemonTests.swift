import DemoApps
import FlowApp
import FlowDaemonTesting
import FlowdCommand
import FlowWire
import Foundation
import Testing

/// The custom daemon of docs/daemon.md (CustomDaemonExample.swift) is the same tool as flowd: its
/// command line, run through the library, has flowd's options, subcommands and exit codes.
/// scripts/try-custom-daemon builds it as a package of its own and runs the binary.
@Suite(.serialized) struct CustomDaemonTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let greeting = FlowdCommand(name: "greeting-daemon", apps: greetingApps)
    let flowd = FlowdCommand(name: "flowd", apps: BuiltInApps.all)

    /// Runs `command` and returns its exit code and what it printed.
    func run(_ command: FlowdCommand, _ arguments: [String]) -> (code: Int32, output: String) {
        let printed = Printed()
        let code = command.run(arguments) { printed.append($0) }
        return (code, printed.text)
    }

    @Test func thePageShowsTheCompiledExample() throws {
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/daemon.md"), encoding: .utf8)
        let example = try String(contentsOf: Self.root.appendingPathComponent("Tests/FlowDaemonTests/CustomDaemonExample.swift"), encoding: .utf8)
        let marker = "// file: Sources/greeting-daemon/Greeting.swift"
        let fromExample = try #require(example.range(of: marker)).lowerBound
        let end = try #require(example.range(of: "// end of file")).lowerBound
        let code = String(example[fromExample..<end])
        #expect(page.contains("```swift\n" + code + "```"), "docs/daemon.md must show CustomDaemonExample.swift from '\(marker)' to '// end of file'")
    }

    @Test func helpListsFlowdsOptionsAndSubcommands() {
        func options(_ help: String, _ name: String) -> String {
            let text = help.replacingOccurrences(of: name, with: "flowd")
            return String(text[text.range(of: "OPTIONS:")!.lowerBound...])
        }
        #expect(options(greeting.help("serve"), "greeting-daemon") == options(flowd.help("serve"), "flowd"))
        #expect(options(greeting.help("replay"), "greeting-daemon") == options(flowd.help("replay"), "flowd"))
        #expect(options(greeting.help("describe"), "greeting-daemon") == options(flowd.help("describe"), "flowd"))
        let top = greeting.help()
        #expect(top.contains("USAGE: greeting-daemon <subcommand>"))
        // The same options; the subcommands' list differs only in serve's line, which names the daemon.
        func untilSubcommands(_ text: String) -> String { String(text[..<text.range(of: "SUBCOMMANDS:")!.lowerBound]) }
        #expect(untilSubcommands(options(top, "greeting-daemon")) == untilSubcommands(options(flowd.help(), "flowd")))
        // Its own program: its name, never flowd's demo (apps, links, Python screens).
        let serve = greeting.help("serve")
        #expect(serve.contains("The greeting-daemon daemon (built on flowd \(FlowdVersion.string))"))
        #expect(serve.contains("restored when greeting-daemon starts again"))
        for help in [top, serve, greeting.help("replay"), greeting.help("describe")] {
            for demo in ["launcher", "students", "Python", "tutorial", "another flowd"] {
                #expect(!help.contains(demo), "greeting-daemon's help mentions \(demo):\n\(help)")
            }
        }
        #expect(run(greeting, ["--help"]).code == 0)
        #expect(run(greeting, ["--version"]) == (0, "0.1.0"))
    }

    /// A custom daemon is its own program: Welcome (and `flowctl ping`) name it, with flowd's version beside it.
    @Test func welcomeNamesTheDaemonWithFlowdsVersionBesideIt() throws {
        #expect(flowd.serverDescription == "flowd \(FlowdVersion.string)")
        #expect(greeting.serverDescription == "greeting-daemon (flowd \(FlowdVersion.string))")
        let shop = FlowdCommand(name: "shop", apps: greetingApps, version: "2.3.0")
        #expect(shop.serverDescription == "shop 2.3.0 (flowd \(FlowdVersion.string))")
        let daemon = EmbeddedDaemon(app: try #require(greetingApps.first).make()) { $0.server = greeting.serverDescription }
        let answer = daemon.connect().hello(role: .debug)
        guard case .welcome(let welcome)? = answer.first else {
            Issue.record("expected Welcome, got \(answer)")
            return
        }
        #expect(welcome.server == "greeting-daemon (flowd \(FlowdVersion.string))")
    }

    @Test func listsItsApps() {
        #expect(run(greeting, ["--list-apps"]) == (0, "greeting         says hello until OK is pressed"))
        #expect(run(greeting, ["serve", "--list-apps"]) == (0, "greeting         says hello until OK is pressed"))
    }

    @Test func describesItsScreens() throws {
        let (code, output) = run(greeting, ["describe", "greeting", "--json"])
        #expect(code == 0)
        #expect(output == """
            {"app":"greeting","screens":[{"kind":"greeting","output_content_type":"application/json","outputs":[{"example":{"ok":{}},"name":"ok","schema":{"properties":{"ok":{"properties":{},"type":"object"}},"required":["ok"],"type":"object"}}],"state":{"content_type":"application/json","example":{"text":"Hello"},"schema":{"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}}}],"undescribed_kinds":[]}
            """)
        #expect(run(greeting, ["describe"]).output.hasPrefix("app greeting: 1 screen kind with a contract\n\nkind greeting\n"))
    }

    @Test func badArgumentsExit64AsFlowdsDo() {
        for arguments in [["--app", "nope"], ["describe", "nope"], ["replay", "x.rec", "--app", "nope"], ["--ack-timeout", "0"],
                          ["--state", "a", "--no-state"], ["--open", "a//b"], ["--bogus"], ["describe", "--json", "--markdown"],
                          ["--spawn-screens", "=x"]] {
            #expect(run(greeting, arguments).code == 64, "\(arguments)")
            #expect(run(flowd, arguments).code == 64, "\(arguments)")
        }
    }

    /// A file that is not a recording exits 65, one that cannot be read 66; a difference stays 1.
    @Test func replayOfAFileThatIsNotARecordingExits65AndOfNoFile66() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-recording-\(getpid())")
        try Data("hello\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(run(greeting, ["replay", file.path]).code == 65)
        #expect(run(flowd, ["replay", file.path]).code == 65)
        #expect(run(flowd, ["replay", file.path + "-missing"]).code == 66)
    }
}

/// Collects what a command printed.
final class Printed: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var text: String { lock.withLock { lines.joined(separator: "\n") } }
}
