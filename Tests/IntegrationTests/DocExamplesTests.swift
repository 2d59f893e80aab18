import FlowdTestSupport
import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

#if canImport(Glibc)
import Glibc
#endif

/// A command example of a page: a `$ COMMAND` line of a fenced block with the output shown under it (its
/// `(exit N)` and `(stderr)` notes taken off), or a line of a ```sh block with its `# comment`.
struct PageExample: CustomStringConvertible {
    var command: String
    /// The lines shown under a `$` line, without the elisions (`...`).
    var shown: [String] = []
    /// The exit status the page gives (`(exit N)`), else 0.
    var status: Int32 = 0
    var comment = ""
    var line: Int
    var description: String { "line \(line): \(command)" }

    /// Every example of `page`, in its order.
    static func all(in page: String) -> [PageExample] {
        var examples: [PageExample] = []
        var fence: String?
        var current: PageExample?
        func flush() { if let example = current { examples.append(example) }; current = nil }
        for (index, text) in page.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                flush()
                fence = fence == nil ? String(trimmed.dropFirst(3)) : nil
                continue
            }
            guard let language = fence else { continue }
            if text.hasPrefix("$ ") {
                flush()
                current = PageExample(command: String(text.dropFirst(2)), line: index + 1)
            } else if current != nil {
                var shown = String(text)
                // A note after the output, set off by blank space: (exit N), (stderr).
                if let note = shown.range(of: #"\s{2,}\((exit \d+|stderr)\)\s*$"#, options: .regularExpression) {
                    let word = shown[note].trimmingCharacters(in: .whitespaces).dropFirst().dropLast()
                    if word.hasPrefix("exit ") { current!.status = Int32(word.dropFirst(5)) ?? 0 }
                    shown = String(shown[..<note.lowerBound])
                }
                if shown.trimmingCharacters(in: .whitespaces) != "..." && !shown.isEmpty { current!.shown.append(shown) }
            } else if language == "sh", !trimmed.isEmpty {
                let (command, comment) = PageCommands.split(trimmed)
                if !command.isEmpty { examples.append(PageExample(command: command, comment: comment, line: index + 1)) }
            }
        }
        return examples
    }
}

/// The command examples of docs/flowctl.md and docs/demo.md (issue 32): every `$ flowctl ...`, `flowd ...`
/// and script line of their fenced blocks, read from the pages when the test runs, runs in page order, and
/// its exit status and output are checked against what the page shows — or it is skipped, with the reason,
/// in the table below. A page example without an entry, or an entry without its example, fails.
//
// How they run: each in `bash -e -o pipefail` in a temporary directory (scripts/ lines: the checkout),
// with the suite's debug build first on PATH (the pages' `.build/release` is not built by the suite) and
// FLOWD_SOCKET set to a daemon of the app the entry names (`flowd --app APP` on a socket in its own
// temporary directory, without a screen host: screens wait for one, and flowctl drives the flows). Entries
// of one app share its daemon in page order, so an example meets the state the ones above it left, as a
// reader's session would; `fresh` starts that app's daemon anew, `before` runs commands first (each must
// exit 0). Checks: `.shownLines`: every line the page shows under the command is a line of its output
// (stdout and stderr together, blank space at the ends aside), and the page shows at least one (else the
// example would be checked by its exit status alone); `.shows`: the output contains each text (for
// output with pids, times or paths); `.svg`: the command wrote an SVG file (well-formed XML, an `svg` root)
// with a node for each name (Graphviz's `<g class="node"><title>NAME</title>`) and each text in it; the
// exit status is the page's `(exit N)`, else 0. A command that runs
// until Ctrl-C (`flowctl record`) runs in the background while its entry's `meanwhile` commands run, and
// then gets SIGINT.
@Suite("docs' command examples", .serialized)
struct DocExamplesTests {
    struct Entry: Sendable {
        enum Check: Sendable {
            case shownLines
            case shows([String])
            case svg(file: String, nodes: [String], texts: [String])
            case skip(String)
        }
        var app: String? = nil
        var fresh = false
        var before: [String] = []
        var check: Check
        /// The command as the test runs it, when not as written.
        var runAs: (@Sendable (String) -> String)? = nil
        /// Runs in the background until SIGINT, once its output shows `ready`; these commands run meanwhile.
        var meanwhile: (ready: String, commands: [String])? = nil
        var needs: [String] = []
    }

    static let debugBuild: @Sendable (String) -> String = { $0 + " --debug --no-build" }
    static let pressFirst = #"flowctl inject '{"didPressButton":{"index":0}}'"#

    /// docs/flowctl.md, by command (a command's second example on the page: "COMMAND #2").
    static let flowctlPage: [String: Entry] = [
        "scripts/generate-cli-docs": Entry(check: .skip("builds release and swift-argument-parser's generate-manual (minutes); FirstFiveMinutesTests runs it with --no-build --completions-only")),
        "man -M .build/cli-docs/man flowctl.select-tab": Entry(check: .skip("reads the man pages scripts/generate-cli-docs writes (not built here) in a pager")),
        "source .build/cli-docs/completions/bash/flowctl": Entry(check: .skip("reads the completions scripts/generate-cli-docs writes (not built here) into an interactive shell; FirstFiveMinutesTests checks them")),
        "flowctl ping": Entry(app: "modal", fresh: true, check: .shows(["pong from flowd 0.1.0 at ", " (app modal): ", " µs"])),
        // Every row's name; the numbers are the example's daemon's.
        "flowctl stats": Entry(app: "modal", check: .shows([
            "flows ", "screens ", "screens held ", "screen restarts ", "restarts given up ", "hosts resumed ", "resumes expired ",
            "hosts hung ", "journaled inputs ", "restored inputs ", "journal pending ", "journal bytes ", "journal inputs ",
            "checkpoints ", "unknown kinds ", "without host ", "refused commands ", "pooled ready ", "pooled starting ",
            "pool hits ", "pool misses ", "unchanged updates ",
        ])),
        "flowctl describe | jq -c '.screens[] | {kind, outputs: [.outputs[].name]}'": Entry(app: "tutorial", fresh: true, check: .shownLines, needs: ["jq"]),
        "flowctl describe --kind tutorial | jq -c .state.example": Entry(app: "tutorial", check: .shownLines, needs: ["jq"]),
        "flowctl describe --kind cart": Entry(app: "tutorial", check: .shownLines),
        // The modal app with its detail presented; the page's has a host (screens not "waiting for host").
        "flowctl tree": Entry(app: "modal", before: [pressFirst], check: .shows([
            "flowd app modal: 2 flows, 2 screens, ", "flows", "  flow 1 ModalFlow  screen 2", "    flow 2 ModalDetailFlow  screen 4",
            "navigation", "  window", "    stack 3  1 screen deep", "      [0] screen 2 item  flow 1 ModalFlow  ",
            "        presents stack 5  1 screen deep", "          [0] screen 4 item  flow 2 ModalDetailFlow  ", "connections",
            "  #", " debug flowctl pid ",
        ])),
        "flowctl tree --json | jq -c '.rootFlow | {id, type}'": Entry(app: "modal", check: .shownLines, needs: ["jq"]),
        // The modal app's tree (its detail presented, by `flowctl tree` above) drawn: its flows, the window, the
        // two stacks and the two screens.
        "flowctl dot | dot -Tsvg > tree.svg": Entry(app: "modal", check: .svg(
            file: "tree.svg", nodes: ["f1", "f2", "n1", "n2", "n3", "n4", "n5"],
            texts: ["flowd app modal", "ModalFlow", "ModalDetailFlow", "window", "stack 3", "stack 5", "screen 2", "screen 4"]), needs: ["dot"]),
        // The lines that do not depend on a host's acknowledgements (without a host, screens are "pending ack").
        "flowctl dot": Entry(app: "modal", check: .shows([
            "digraph flowd {\n", "  label=\"flowd app modal\"\n", ##"  f1 [label="flow 1\nModalFlow" shape=box style="rounded,filled" fillcolor="#e8e0f8"]"##,
            ##"  f2 [label="flow 2\nModalDetailFlow" shape=box style="rounded,filled" fillcolor="#e8e0f8"]"##, "  f1 -> f2\n",
            "  n1 [label=\"window\" shape=folder]\n", "  n1 -> n3\n", "  n3 [label=\"stack 3\" shape=box3d]\n", "  n3 -> n2 [label=\"0\"]\n",
            #"  n2 [label="screen 2\nitem"#, "  n2 -> n5 [style=dashed label=\"presents\"]\n", "  f1 -> n2 [style=dotted color=gray50 arrowhead=none]\n", "}\n",
        ]), needs: ["dot"]),
        "flowctl watch": Entry(check: .skip("runs until Ctrl-C; ReadmeTourTests runs it beside the README's demo and interrupts it")),
        "flowctl watch --json | jq -c 'select(.kind == \"place\") | {screen, name, visible: .placement.visible}'":
            Entry(check: .skip("runs until Ctrl-C; FlowctlWatchTests checks --json's fields")),
        "flowctl watch --json --count 1": Entry(check: .skip("waits for the next event; FlowctlWatchTests checks --count and --json")),
        // The launcher: the menu's second button opens the personal profile, whose Save pushes its summary.
        #"flowctl inject '{"didPressButton":{"index":1}}'"#: Entry(app: "launcher", fresh: true, check: .shownLines),
        #"flowctl inject '{"didPressButton":{"index":0}}'"#: Entry(app: "launcher", check: .shownLines),
        "flowctl back": Entry(app: "launcher", check: .shownLines),
        #"flowctl inject 4 '{"didPressButton":{"index":0}}'"#: Entry(app: "launcher", check: .shownLines),
        "flowctl back 6": Entry(app: "launcher", check: .shownLines),
        "flowctl select-tab 3 2": Entry(app: "mirror", fresh: true, check: .shownLines),
        // The modal app's detail is still presented (flowctl tree, above).
        "flowctl close-modal 4": Entry(app: "modal", check: .shownLines),
        "flowctl inject 9 '{}'": Entry(app: "launcher", check: .shownLines),
        #"flowctl inject '{"didPressButton":{"index":99}}'"#: Entry(app: "launcher", check: .shownLines),
        // The launcher's injections above, audited with who asked (pids, times and paths are this run's).
        "flowctl audit": Entry(app: "launcher", check: .shows([
            "#1 ", " inject-output screen 2 by #", " uid ", " gid ", " pid ", "/flowctl", "\n#3 ", " inject-navigation screen 5 by #",
        ])),
        // The modal app's detail presented and its second screen pushed.
        "flowctl terminate 2": Entry(app: "modal", fresh: true, before: [pressFirst, pressFirst], check: .shownLines),
        "flowctl terminate 2 #2": Entry(app: "modal", check: .shownLines),
        "flowctl terminate": Entry(app: "launcher", fresh: true, check: .shownLines),
        "flowctl open students/Bob/age": Entry(app: "launcher", check: .shownLines),
        "flowctl open students/Zed/age": Entry(app: "launcher", check: .shownLines),
        "flowctl open 'a b'": Entry(app: "launcher", check: .shownLines),
        "flowctl where": Entry(app: "launcher", check: .shownLines),
        #"flowctl open "$(flowctl where)""#: Entry(app: "launcher", check: .shownLines),
        // The till after Scan apple and Take payment: the customer's window shows the Pay prompt.
        "flowctl where #2": Entry(app: "till", fresh: true, before: [
            #"flowctl inject 2 '{"didPressButton":{"index":0}}'"#, #"flowctl inject 2 '{"didPressButton":{"index":3}}'"#,
        ], check: .shownLines),
        #"flowctl open "$(flowctl where)" #2"#: Entry(app: "till", check: .shownLines),
        // The launcher after the tutorial: opened, Next, back, Skip (two dismissals acknowledged at once: no host).
        "flowctl history": Entry(app: "launcher", fresh: true, before: [
            pressFirst, #"flowctl inject '{"didPressButton":{"index":1}}'"#, "flowctl back", pressFirst,
        ], check: .shows([
            "flowd app launcher version ", ": 6 inputs since the app's start (moment 0)",
            #"  output {"didPressButton":{"index":0}} on menu screen 2 (flow 1 LauncherFlow)  → placed 4; moved 2; flows started 2"#,
            "  back(committed) on tutorial screen 5 (flow 2 OnboardingFlow)  → moved 4; dismissed 5",
            "  dismissal acknowledged on tutorial screen 4",
        ])),
        "flowctl at 2": Entry(app: "launcher", check: .shows([
            "moment 2 of 6, after input 2 at ", #": output {"didPressButton":{"index":1}} on tutorial screen 4 (flow 2 OnboardingFlow)"#,
            "changed: placed 5; moved 4\nplace: tutorial/done\n\nflows\n  flow 1 LauncherFlow  screen 2\n    flow 2 OnboardingFlow  screens 4, 5\n",
            "      [2] screen 5 tutorial  flow 2 OnboardingFlow  visible\n",
            #"  screen 5 tutorial  {"title":"All set","body":"That is the whole tutorial.","buttons":["Done"]}"#,
        ])),
        "flowctl at 9": Entry(app: "launcher", check: .shownLines),
        "flowctl history --from 2 --export range.rec": Entry(app: "launcher", check: .shows([
            "flowctl: wrote range.rec (", " bytes): moment 1 and inputs 2 to the last; check it with `flowd replay range.rec`",
        ])),
        "flowd replay range.rec": Entry(app: "launcher", check: .shownLines),
        // Serves until Ctrl-C: stopped once it listens and flowctl reached it on the page's socket.
        #"flowd replay range.rec --until 1 --serve -- --socket "${XDG_RUNTIME_DIR:-/tmp/flowd-$(id -u)}/range.sock""#: Entry(app: "launcher", check: .shows([
            "flowd replay: serving app launcher at the moment after input 1 of 3 of range.rec, restored from the journal ",
        ]), meanwhile: (ready: "listening on", commands: [#"flowctl ping --socket "${XDG_RUNTIME_DIR:-/tmp/flowd-$(id -u)}/range.sock""#])),
        "flowctl record bug.rec": Entry(app: "launcher", check: .shows([
            "flowctl: recording flowd at ", " (app launcher) to bug.rec from event ", ", with the state it starts from (",
            " records); Ctrl-C to stop", "flowctl: recorded ", " events to bug.rec",
        ]), meanwhile: (ready: "Ctrl-C to stop", commands: ["flowctl open tutorial/done", "flowctl back", "flowctl open menu"])),
        "flowd replay bug.rec": Entry(app: "launcher", check: .shows(["same placements (", " inputs replayed against app launcher"])),
        "flowd replay bug.rec --app deep-stack": Entry(app: "launcher", check: .shownLines),
    ]

    /// docs/demo.md, by command.
    static let demoPage: [String: Entry] = [
        "scripts/demo": Entry(check: .skip("interactive (a terminal); ReadmeTourTests and InteractiveDemoTests run it in tmux")),
        "scripts/demo --headless": Entry(check: .shows(["== flowd's log", "app launcher finished", "demo: every app reached its expected result; flowd exited 0"]), runAs: debugBuild),
        "scripts/demo --web": Entry(check: .skip("ReadmeTourTests runs it (the README's tour has the same line)")),
        "scripts/demo --gtk": Entry(check: .skip("opens windows on a display; Tests/GTK walks the demo with flowd-gtk under Xvfb")),
        "scripts/demo --qt": Entry(check: .skip("opens windows on a display; Tests/Qt walks the demo with flowd-qt offscreen")),
        "scripts/demo --shell": Entry(check: .skip("opens flowd-shell's window on a desktop; scripts/libflowd-screen test-shell runs the shell headless")),
        "scripts/demo --shell --qt-login": Entry(check: .skip("opens flowd-shell's window on a desktop; the shell test `mixed` runs the Qt login and GTK screens headless")),
        "scripts/demo --debug": Entry(check: .skip("interactive; InteractiveDemoTests runs scripts/demo --debug --no-build in tmux")),
        "scripts/demo -- --log-level debug": Entry(check: .skip("interactive, and builds release")),
        "scripts/demo --headless --spawned": Entry(check: .shows(["screen processes spawned", "demo: every app reached its expected result; no screen lost; flowd exited 0"]), runAs: debugBuild),
        "scripts/kill-screens --kills 10": Entry(check: .shows(["kill-screens: the walk with kills reached the clean walk's results; no screen lost; no process left"]), runAs: debugBuild),
        ".build/release/flowctl watch": Entry(check: .skip("runs until Ctrl-C; ReadmeTourTests runs flowctl watch beside its demo")),
        // On the suite's build, against the launcher on the default socket (FLOWD_SOCKET), as the demo's.
        ".build/release/flowctl open students/Bob/age": Entry(app: "launcher", check: .shownLines, runAs: { $0.replacingOccurrences(of: ".build/release/", with: "") }),
        // The steps the kills fall on and the times vary from run to run; the rest is the page's.
        "scripts/kill-screens --kills 10 --seed 3": Entry(check: .shows([
            "== 10 of 10 kills done (seed 3), at steps done [", "screen processes spawned (24 in the clean walk)",
            "== steps run again after a kill: ", "== walk times: clean ",
            "kill-screens: the walk with kills reached the clean walk's results; no screen lost; no process left",
        ]), runAs: debugBuild),
    ]

    @Test(arguments: ["docs/flowctl.md", "docs/demo.md"])
    func everyExampleDoesWhatThePageShows(page: String) throws {
        let table = page == "docs/flowctl.md" ? Self.flowctlPage : Self.demoPage
        let text = try String(contentsOfFile: repositoryRoot + "/" + page, encoding: .utf8)
        var seen: [String: Int] = [:]
        let examples = PageExample.all(in: text).map { example -> (key: String, example: PageExample) in
            seen[example.command, default: 0] += 1
            let count = seen[example.command]!
            return (count == 1 ? example.command : "\(example.command) #\(count)", example)
        }
        try #require(examples.count >= 5, "\(page) has too few command examples: \(examples.map(\.example))")
        let unchecked = examples.filter { table[$0.key] == nil }
        #expect(unchecked.isEmpty, "\(page) examples without an entry in DocExamplesTests (add one, or a skip with its reason): \(unchecked.map { "\($0.example) (key \($0.key))" })")
        let stale = Set(table.keys).subtracting(examples.map(\.key))
        #expect(stale.isEmpty, "entries in DocExamplesTests for commands \(page) no longer has: \(stale.sorted())")
        try #require(unchecked.isEmpty)

        let run = try ExampleRun(page: page)
        var ran = 0, skipped: [String] = []
        for (key, example) in examples {
            let entry = table[key]!
            if case .skip(let reason) = entry.check {
                skipped.append("\(example.command): \(reason)")
                continue
            }
            let missing = entry.needs.filter { !Tour.onPath($0) }
            if !missing.isEmpty {
                let note = "\(page) \(example): needs \(missing.joined(separator: ", ")) (scripts/test installs it)"
                if ProcessInfo.processInfo.environment["CI"] == "true" { Issue.record(Comment(rawValue: note + "; on CI a missing tool fails")) }
                skipped.append(note)
                continue
            }
            try run.perform(example, entry)
            ran += 1
        }
        print("doc examples: \(page): \(ran) ran, \(skipped.count) skipped:\n  " + skipped.joined(separator: "\n  "))
    }
}

extension DocExamplesTests {
    /// The harness's own checks fail what they should: a `.shownLines` example the page shows no output
    /// for (it would pass on its exit status alone), a line the page shows that the output lacks, and an
    /// SVG file cut short or without a node.
    @Test func theChecksFailWhatTheyShould() {
        let examples = PageExample.all(in: "```\n$ flowctl dot | dot -Tsvg > tree.svg\n$ flowctl where\nmenu\n```\n")
        #expect(examples.map(\.command) == ["flowctl dot | dot -Tsvg > tree.svg", "flowctl where"])
        #expect(examples.map(\.shown) == [[], ["menu"]])
        withKnownIssue("a .shownLines example whose page shows no output fails, whatever the output") {
            ExampleRun.checkShownLines(examples[0], output: "", context: "no output")
        }
        withKnownIssue("a line the page shows that the output lacks fails, a longer line too") {
            ExampleRun.checkShownLines(examples[1], output: "menu/tutorial\n", context: "another line")
        }
        ExampleRun.checkShownLines(examples[1], output: "  menu \n", context: "the line")

        let svg = #"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><g class="graph"><title>flowd</title>"#
            + #"<g class="node"><title>f1</title><text>flow 1</text></g><g class="edge"><title>f1&#45;&gt;n2</title></g></g></svg>"#
        let whole = SVGNodes(Data(svg.utf8))
        #expect(whole.isWellFormed && whole.root == "svg" && whole.nodes == ["f1"] && whole.texts == ["flow 1"])
        let cut = SVGNodes(Data(svg.utf8.dropLast(10)))
        #expect(!cut.isWellFormed, "an SVG cut short is not well-formed")
    }
}

/// The daemons and the working directory of one page's examples.
final class ExampleRun {
    let page: String
    let work = makeTemporaryDirectory()
    var daemons: [String: DaemonProcess] = [:]

    init(page: String) throws { self.page = page }

    deinit { try? FileManager.default.removeItem(atPath: work) }

    func environment(app: String?) throws -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        // The suite's build (debug), not the pages' .build/release.
        environment["PATH"] = productsDirectory.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["XDG_RUNTIME_DIR"] = work
        environment["XDG_STATE_HOME"] = work + "/state"
        environment["NO_COLOR"] = "1"
        if let app {
            let daemon = try daemons[app] ?? DaemonProcess(arguments: ["--app", app])
            daemons[app] = daemon
            environment["FLOWD_SOCKET"] = daemon.socketPath
        } else {
            environment["FLOWD_SOCKET"] = work + "/flowd.sock"
        }
        return environment
    }

    func perform(_ example: PageExample, _ entry: DocExamplesTests.Entry) throws {
        if entry.fresh, let app = entry.app { daemons[app] = nil }
        let environment = try environment(app: entry.app)
        let directory = example.command.hasPrefix("scripts/") ? repositoryRoot : work
        for command in entry.before {
            let process = try ShellProcess(command, directory: work, environment: environment)
            let status = process.waitForExit(timeoutSeconds: 30)
            try #require(status == 0, "\(page) \(example): its set-up `\(command)` exited \(status.map(String.init) ?? "none"): \(process.output)")
        }
        let line = entry.runAs?(example.command) ?? example.command
        let process = try ShellProcess(line, directory: directory, environment: environment)
        if let meanwhile = entry.meanwhile {
            let (ready, commands) = meanwhile
            try #require(process.waitForOutput(ready, timeoutSeconds: 30), "\(page) \(example) never printed '\(ready)': \(process.output)")
            for command in commands {
                let other = try ShellProcess(command, directory: work, environment: environment)
                let status = other.waitForExit(timeoutSeconds: 30)
                #expect(status == 0, "\(page) \(example): `\(command)`, run while it does, exited \(status.map(String.init) ?? "none"): \(other.output)")
            }
            process.interrupt()
        }
        let status = process.waitForExit(timeoutSeconds: 60)
        let output = process.output
        let ran = line == example.command ? "" : " (run as `\(line)`)"
        print("doc examples: \(page) \(example)\(ran): exit \(status.map(String.init) ?? "none (killed after 60 s)")")
        let context = "\(page) \(example)\(ran) exited \(status.map(String.init) ?? "nothing: still running after 60 s, killed"); its output:\n\(output)"
        #expect(status == example.status, "expected exit \(example.status), as the page says: \(context)")
        switch entry.check {
        case .shownLines:
            Self.checkShownLines(example, output: output, context: context)
        case .svg(let file, let nodes, let texts):
            let path = work + "/" + file
            guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else {
                Issue.record("expected it to write \(file): \(context)")
                break
            }
            let svg = SVGNodes(data)
            #expect(svg.isWellFormed && svg.root == "svg", "\(file) is not an SVG document (root \(svg.root ?? "none"), \(svg.error ?? "no parse error")): \(context)")
            #expect(Set(nodes).isSubset(of: svg.nodes), "\(file) has the nodes \(svg.nodes.sorted()), not all of \(nodes): \(context)")
            for text in texts where !svg.texts.contains(text) {
                Issue.record("expected the text '\(text)' drawn in \(file) (it draws \(svg.texts)): \(context)")
            }
        case .shows(let texts):
            for text in texts where !output.contains(text) {
                Issue.record("expected '\(text)' in the output: \(context)")
            }
        case .skip:
            break
        }
    }

    /// `.shownLines`: each line the page shows under `example` is a line of `output`; a page that shows
    /// none fails (give the entry a check that says something, `.shows` or `.svg`).
    static func checkShownLines(_ example: PageExample, output: String, context: @autoclosure () -> String,
                                sourceLocation: SourceLocation = #_sourceLocation) {
        guard !example.shown.isEmpty else {
            Issue.record("""
                the page shows no output under it, so .shownLines would check its exit status alone: show its \
                output on the page, or check it with .shows or .svg: \(context())
                """, sourceLocation: sourceLocation)
            return
        }
        let lines = Set(output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        for shown in example.shown where !lines.contains(shown.trimmingCharacters(in: .whitespaces)) {
            Issue.record("expected the line the page shows, '\(shown)': \(context())", sourceLocation: sourceLocation)
        }
    }
}

/// What an SVG file Graphviz wrote holds: its root element, the names of its nodes (the `title` of each
/// `<g class="node">`) and the text it draws.
struct SVGNodes {
    var root: String?
    var nodes: Set<String> = []
    var texts: [String] = []
    var isWellFormed = false
    var error: String?

    init(_ data: Data) {
        let reader = Reader()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        isWellFormed = parser.parse() && reader.closedRoot
        error = parser.parserError.map { "\($0)" }
        (root, nodes, texts) = (reader.root, reader.nodes, reader.texts)
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var root: String?
        var nodes: Set<String> = []
        var texts: [String] = []
        var closedRoot = false
        private var open: [(name: String, isNode: Bool)] = []
        private var characters = ""

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            if root == nil { root = name }
            open.append((name, name == "g" && attributes["class"] == "node"))
            characters = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { characters += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            open.removeLast()
            if name == "title", open.last?.isNode == true { nodes.insert(characters) }
            if name == "text" { texts.append(characters) }
            if open.isEmpty && name == root { closedRoot = true }
            characters = ""
        }
    }
}
