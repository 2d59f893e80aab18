import FlowdTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One command of a page's ```sh block, as a person types it, with its `# comment`.
struct PageCommand: CustomStringConvertible {
    var command: String
    var comment: String
    /// The page's line number (1-based) the command is on.
    var line: Int
    var description: String { "line \(line): \(command)" }
}

/// Reads the commands out of a Markdown page, at test time: the test follows the page as it changes.
enum PageCommands {
    /// The lines of the section under the `## ` heading `heading`, up to the next `## ` heading, with their
    /// 1-based line numbers.
    static func section(_ heading: String, of page: String) -> [(number: Int, text: String)] {
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: "## " + heading) else { return [] }
        let end = lines[(start + 1)...].firstIndex { $0.hasPrefix("## ") } ?? lines.count
        return (start..<end).map { (number: $0 + 1, text: lines[$0]) }
    }

    /// Every non-empty line of every ```sh block in `lines`, split at its comment; a comment that says
    /// `then: COMMAND` (e.g. "Ctrl-C to stop; then: flowd replay bug.rec") yields COMMAND too, right after.
    static func shellCommands(in lines: [(number: Int, text: String)]) -> [PageCommand] {
        var commands: [PageCommand] = []
        var inBlock = false
        for (number, text) in lines {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                inBlock = !inBlock && trimmed == "```sh"
                continue
            }
            guard inBlock, !trimmed.isEmpty else { continue }
            let (command, comment) = split(trimmed)
            guard !command.isEmpty else { continue }
            commands.append(PageCommand(command: command, comment: comment, line: number))
            if let then = comment.range(of: "then: ") {
                let next = String(comment[then.upperBound...]).trimmingCharacters(in: .whitespaces)
                commands.append(PageCommand(command: next, comment: "(from the comment of line \(number))", line: number))
            }
        }
        return commands
    }

    /// Splits a shell line at its comment: a `#` at the start of a word, outside quotes.
    static func split(_ line: String) -> (command: String, comment: String) {
        var quote: Character?
        var previous: Character = " "
        for index in line.indices {
            let character = line[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "#" && previous.isWhitespace {
                return (String(line[..<index]).trimmingCharacters(in: .whitespaces),
                        String(line[line.index(after: index)...]).trimmingCharacters(in: .whitespaces))
            }
            previous = character
        }
        return (line.trimmingCharacters(in: .whitespaces), "")
    }
}

/// The README's "A five-minute tour", run as a new user types it (issue 32): every command of the
/// section's ```sh blocks, read from README.md when the test runs, in the page's order, against a running
/// demo (`scripts/demo` in an 80x24 tmux terminal, which the later commands act on), each checked for its
/// exit status and what it prints.
//
// What each command must do is in `tour` below, keyed by the command exactly as the README writes it:
// a command of the README without an entry fails the test (so a new command cannot pass unchecked), and so
// does an entry the README no longer has. A check names text its output (stdout and stderr, as a terminal
// shows them) must contain, mostly the words its comment promises; where the comment says what the demo's
// screen does, the demo's terminal must show it too.
//
// How the commands run:
// - each in its own `bash -e -o pipefail -c COMMAND` (a failure anywhere on a line, or in a pipe, fails
//   the line), in a temporary directory of the test that stands for the checkout, with a `.build` folder
//   as a built checkout has (the files the tour writes, .build/bug.rec and .build/tree.svg, land there,
//   not in the real checkout), with NO_COLOR=1;
// - `PATH` starts with the bin directory of the build the suite built (debug), not the README's
//   `.build/release`: the suite never builds release. The README's `export PATH=...` line still runs (in
//   its own shell, so it changes nothing for the others) and must exit 0;
// - `scripts/demo` runs as `scripts/demo --debug --no-build` (the same debug build), `--web` with a free
//   `--port` (8471 may be taken by another demo on this machine);
// - nothing touches the user's daemon, journal or demo logs: `FLOWD_SOCKET`, `XDG_RUNTIME_DIR`,
//   `XDG_STATE_HOME` and `FLOWD_DEMO_LOGS` point into the test's directory under /tmp (socket paths stay
//   far below the 107 bytes libuv keeps);
// - a long-running command (`flowctl watch`, `flowctl record`, `scripts/demo --web`) starts in the
//   background, is ready once it prints its first line, and gets SIGINT, as Ctrl-C would send it: `watch`
//   after the commands that follow it ran (it must have shown their events), `record` after a person
//   pressed keys in the demo (so the recording has something to replay), `--web` once it printed its URLs.
//   Every wait has a deadline; none is a fixed sleep.
//
// `dot` (graphviz) comes from scripts/test (ensure_doc_tools); without it the dot line is skipped with a
// note, except on CI (CI=true), where it fails.
//
// It prints a line per command with its exit status; README_TOUR_SHOW=1 prints each command's output too.
@Suite("README tour", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")
                                   || FileManager.default.isExecutableFile(atPath: "/usr/local/bin/tmux")
                                   || ProcessInfo.processInfo.environment["CI"] == "true"))
struct ReadmeTourTests {
    typealias Terminal = InteractiveDemoTests.Terminal

    /// How a command runs.
    enum Run: Sendable {
        /// To its end (30 s at most).
        case toItsEnd
        /// The demo itself: in a tmux terminal, left running for the commands after it; `q` ends it
        /// after the last command.
        case theDemo
        /// In the background: ready once its output contains `ready`, then interrupted (SIGINT) `when`.
        case untilInterrupted(ready: String, when: Interrupt)
    }

    enum Interrupt: Sendable {
        /// As soon as it is ready.
        case ready
        /// Before the next background command starts, or after the last command: the commands between
        /// run while it does.
        case afterTheNextCommands
        /// After a person pressed `keys` in the demo's terminal, one at a time, each followed by what the
        /// terminal must show.
        case afterKeys([(key: String, shows: String)])
    }

    struct Expectation: Sendable {
        var run: Run = .toItsEnd
        /// The command as the test runs it, when not as written (`scripts/demo` on the debug build).
        var runAs: (@Sendable (String) -> String)? = nil
        var status: Int32 = 0
        /// Text its output (stdout and stderr) must contain.
        var shows: [String] = []
        /// Whole lines its output must have (blank space at their ends aside).
        var lines: [String] = []
        /// Text the demo's terminal must show after it.
        var terminalShows: [String] = []
        /// Files (in the working directory) and text each must contain.
        var files: [(path: String, contains: String)] = []
        /// Programs it needs besides the suite's products (installed by scripts/test).
        var needs: [String] = []
    }

    /// The check of every command in the README's tour, by the command as the README writes it.
    static let tour: [String: Expectation] = [
        "scripts/demo": Expectation(
            run: .theDemo, runAs: { $0 + " --debug --no-build" },
            // "draws its screens here": the launcher's menu with its keys.
            terminalShows: ["flowd demos", "[8] Quit", "keys: 1-8 press"]),
        "scripts/demo --web": Expectation(
            run: .untilInterrupted(ready: "demo: open the inspector", when: .ready),
            runAs: { $0 + " --debug --no-build --port \(freePort())" },
            // Ctrl-C: its trap stops flowd-web and flowd, says how flowd ended (as the terminal demo does) and exits 130.
            status: 130,
            shows: ["demo: open the screens", "demo: open the inspector", "http://", "demo: flowd stopped (exit 0)"]),
        #"export PATH="$PWD/.build/release:$PATH""#: Expectation(),
        "flowctl ping": Expectation(shows: ["pong from flowd", "(app launcher)", "µs"]),
        "flowctl stats": Expectation(shows: ["connections", "descriptors", "handles", "flows", "screens"]),
        "flowd --list-apps": Expectation(shows: ["launcher ", "the demo launcher", "tutorial "]),
        "flowd describe tutorial": Expectation(shows: ["tutorial", "State", "Output", "didPressButton", "example"]),
        "flowctl tree": Expectation(shows: ["flowd app launcher", "flows", "navigation", "stack", "menu  flow 1 LauncherFlow", "visible", "connections", "screen-host demo-screens pid"]),
        // At the menu: the launcher's own place, the whole line (a longer link, menu/x or a note, fails).
        "flowctl where": Expectation(lines: ["menu"]),
        "flowctl watch": Expectation(
            run: .untilInterrupted(ready: "watching flowd at", when: .afterTheNextCommands),
            // It saw the injections, the back and the end of the tutorial's flow that follow it.
            shows: ["injected", "output", "place", "user-navigation", "flow-terminated"]),
        #"flowctl inject '{"didPressButton":{"index":0}}'"#: Expectation(
            shows: ["output delivered to the flow owning screen"], terminalShows: ["Welcome", "stack depth 2"]),
        #"flowctl inject '{"didPressButton":{"index":1}}'"#: Expectation(
            shows: ["output delivered to the flow owning screen"], terminalShows: ["All set", "stack depth 3"]),
        "flowctl back; flowctl terminate": Expectation(
            shows: ["back(committed) applied on screen", "terminated OnboardingFlow"], terminalShows: ["flowd demos", "stack depth 1"]),
        // The inputs above are in the history: the presses, the back and the termination.
        "flowctl history": Expectation(shows: ["flowd app launcher version ", " inputs since the ", #"output {"didPressButton":{"index":1}}"#, "back(committed)", "terminate"]),
        "flowctl at 1": Expectation(shows: ["moment 1 of ", ", after input 1 at ", "\nflows\n", "\nnavigation\n", "\nstates\n", "  screen 2 menu  {"]),
        "flowctl record .build/bug.rec": Expectation(
            run: .untilInterrupted(ready: "recording flowd at", when: .afterKeys([(key: "1", shows: "Welcome"), (key: "2", shows: "All set")])),
            shows: ["to .build/bug.rec", "recorded", "events to .build/bug.rec"], files: [(path: ".build/bug.rec", contains: "")]),
        "flowd replay .build/bug.rec": Expectation(shows: ["same placements", "inputs replayed against app launcher"]),
        "flowctl dot | dot -Tsvg > .build/tree.svg": Expectation(files: [(path: ".build/tree.svg", contains: "<svg")], needs: ["dot"]),
    ]

    @Test func everyCommandOfTheTourDoesWhatItsCommentSays() throws {
        let readme = try String(contentsOfFile: repositoryRoot + "/README.md", encoding: .utf8)
        let commands = PageCommands.shellCommands(in: PageCommands.section("A five-minute tour", of: readme))
        try #require(commands.count >= 10, "README.md's tour has too few commands to be the tour: \(commands)")
        // Every command has its check, and every check its command.
        let unchecked = commands.filter { Self.tour[$0.command] == nil }
        #expect(unchecked.isEmpty, "README.md commands without a check in ReadmeTourTests.tour (add one): \(unchecked)")
        let stale = Set(Self.tour.keys).subtracting(commands.map(\.command))
        #expect(stale.isEmpty, "checks in ReadmeTourTests.tour for commands README.md no longer has: \(stale.sorted())")
        try #require(unchecked.isEmpty)
        try #require(commands.first?.command == "scripts/demo", "the tour starts with the demo; it starts with \(commands.first.map(String.init(describing:)) ?? "nothing")")

        let tour = try Tour()
        var results: [String] = []
        for command in commands {
            let expectation = Self.tour[command.command]!
            let missing = expectation.needs.filter { !Tour.onPath($0) }
            if !missing.isEmpty {
                let note = "README.md \(command): needs \(missing.joined(separator: ", ")) (scripts/test installs it)"
                if ProcessInfo.processInfo.environment["CI"] == "true" {
                    Issue.record(Comment(rawValue: note + "; on CI a missing tool fails"))
                } else {
                    print("readme tour: skipped \(note)")
                }
                results.append("skipped \(command.command)")
                continue
            }
            try tour.perform(command, expectation)
            results.append("ran \(command.command)")
        }
        try tour.finish()
        print("readme tour: \(results.filter { $0.hasPrefix("ran") }.count) of \(commands.count) commands of README.md ran, \(results.filter { $0.hasPrefix("skipped") }.count) skipped")
    }
}

/// The tour's state: the test's directory, the demo's terminal, the commands running in the background.
final class Tour {
    let directory = makeTemporaryDirectory()
    let work: String
    let environment: [String: String]
    var terminal: InteractiveDemoTests.Terminal?
    var demo: PageCommand?
    /// Background commands waiting for their SIGINT once the commands after them ran.
    var running: [(command: PageCommand, expectation: ReadmeTourTests.Expectation, process: ShellProcess)] = []

    init() throws {
        work = directory + "/work"
        for sub in ["work", "work/.build", "run", "state", "logs"] {
            try FileManager.default.createDirectory(atPath: directory + "/" + sub, withIntermediateDirectories: true)
        }
        var environment = ProcessInfo.processInfo.environment
        // The suite's build (debug), not the README's .build/release: see ReadmeTourTests.
        environment["PATH"] = productsDirectory.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["FLOWD_SOCKET"] = directory + "/flowd.sock"
        environment["XDG_RUNTIME_DIR"] = directory + "/run"
        environment["XDG_STATE_HOME"] = directory + "/state"
        environment["FLOWD_DEMO_LOGS"] = directory + "/logs"
        environment["NO_COLOR"] = "1"
        self.environment = environment
    }

    deinit {
        for (_, _, process) in running { process.kill() }
        terminal = nil
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func onPath(_ program: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(program)") }
    }

    func perform(_ command: PageCommand, _ expectation: ReadmeTourTests.Expectation) throws {
        let line = expectation.runAs?(command.command) ?? command.command
        switch expectation.run {
        case .theDemo:
            try startDemo(command, line, expectation)
        case .toItsEnd:
            let process = try ShellProcess(line, directory: work, environment: environment)
            let status = process.waitForExit(timeoutSeconds: 30)
            check(command, line, expectation, status: status, output: process.output)
        case .untilInterrupted(let ready, let when):
            // A background command still running stops before the next one starts.
            try interruptRunning()
            // scripts/demo --web shares the terminal demo's FLOWD_DEMO_LOGS, as the two demos do by default.
            let process = try ShellProcess(line, directory: command.command.hasPrefix("scripts/") ? repositoryRoot : work, environment: environment)
            guard process.waitForOutput(ready, timeoutSeconds: 60) else {
                process.kill()
                Issue.record("README.md \(command) (run as \(line)) never printed '\(ready)'; exit \(process.waitForExit(timeoutSeconds: 5).map(String.init) ?? "none"); its output:\n\(process.output)")
                return
            }
            switch when {
            case .ready:
                interrupt(command, line, expectation, process)
            case .afterTheNextCommands:
                running.append((command, expectation, process))
            case .afterKeys(let keys):
                let terminal = try #require(terminal, "README.md \(command) presses keys in the demo, which is not running")
                for (key, shows) in keys {
                    try terminal.press(key)
                    try terminal.waitFor(shows)
                }
                interrupt(command, line, expectation, process)
            }
        }
        if !expectation.terminalShows.isEmpty, expectation.run.isTheDemo == false, let terminal {
            do {
                try terminal.waitFor(expectation.terminalShows)
            } catch {
                Issue.record("after README.md \(command), the demo's terminal never showed \(expectation.terminalShows) (above: what it shows)")
                throw error
            }
        }
    }

    /// Starts the demo in an 80x24 terminal, with the tour's environment, and waits until it draws its menu
    /// and flowctl reaches its daemon.
    private func startDemo(_ command: PageCommand, _ line: String, _ expectation: ReadmeTourTests.Expectation) throws {
        let exports = ["PATH", "FLOWD_SOCKET", "XDG_RUNTIME_DIR", "XDG_STATE_HOME", "FLOWD_DEMO_LOGS", "NO_COLOR"]
            .map { "export \($0)='\(environment[$0]!)'" }.joined(separator: "; ")
        let terminal = try InteractiveDemoTests.Terminal(command: """
            cd '\(repositoryRoot)' && \(exports) && \(line); echo "DEMO-EXITED $?"; read
            """)
        self.terminal = terminal
        demo = command
        print("readme tour: README.md \(command) (run as `\(line)` in an 80x24 tmux terminal): its screens drawn there")
        try terminal.waitFor(expectation.terminalShows)
        // The daemon answers (demo-screens drew the menu it placed, so it listens; ping proves it to flowctl).
        let deadline = Date().addingTimeInterval(30)
        var ping = try ShellProcess("flowctl ping", directory: work, environment: environment)
        while ping.waitForExit(timeoutSeconds: 30) != 0 && Date() < deadline {
            usleep(100_000)
            ping = try ShellProcess("flowctl ping", directory: work, environment: environment)
        }
        let screen = try terminal.screen()
        try #require(ping.waitForExit(timeoutSeconds: 1) == 0, "README.md \(command): flowctl never reached the demo's flowd: \(ping.output)\n\(screen)")
    }

    /// Sends SIGINT (Ctrl-C) to the background commands still running and checks them.
    private func interruptRunning() throws {
        let waiting = running
        running = []
        for (command, expectation, process) in waiting {
            interrupt(command, expectation.runAs?(command.command) ?? command.command, expectation, process)
        }
    }

    private func interrupt(_ command: PageCommand, _ line: String, _ expectation: ReadmeTourTests.Expectation, _ process: ShellProcess) {
        process.interrupt()
        let status = process.waitForExit(timeoutSeconds: 30)
        check(command, line, expectation, status: status, output: process.output)
    }

    /// The last background commands stop; the demo quits with `q`, exits 0 and stops its flowd.
    func finish() throws {
        try interruptRunning()
        guard let terminal, let demo else { return }
        try terminal.press("q")
        try terminal.waitFor("DEMO-EXITED")
        let screen = try terminal.screen()
        #expect(screen.contains("DEMO-EXITED 0") && screen.contains("flowd stopped (exit 0)"),
                "README.md \(demo): the demo did not end cleanly after q:\n\(screen)")
        #expect(!FileManager.default.fileExists(atPath: environment["FLOWD_SOCKET"]!), "flowd removed its socket: it stopped")
    }

    private func check(_ command: PageCommand, _ line: String, _ expectation: ReadmeTourTests.Expectation, status: Int32?, output: String) {
        let ran = line == command.command ? "" : " (run as `\(line)`)"
        print("readme tour: README.md \(command)\(ran): exit \(status.map(String.init) ?? "none (killed after 30 s)")")
        if ProcessInfo.processInfo.environment["README_TOUR_SHOW"] == "1" { print(output) }
        let context = "README.md \(command)\(ran) exited \(status.map(String.init) ?? "nothing: still running after 30 s, killed"); its output:\n\(output)"
        #expect(status == expectation.status, "expected exit \(expectation.status): \(context)")
        for text in expectation.shows where !output.contains(text) {
            Issue.record("expected '\(text)' in the output: \(context)")
        }
        let lines = Set(output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        for line in expectation.lines where !lines.contains(line) {
            Issue.record("expected the line '\(line)' in the output: \(context)")
        }
        for (path, text) in expectation.files {
            let contents = FileManager.default.contents(atPath: work + "/" + path).map { String(decoding: $0, as: UTF8.self) }
            let good = contents.map { text.isEmpty ? !$0.isEmpty : $0.contains(text) } ?? false
            if !good {
                Issue.record("expected \(path) \(text.isEmpty ? "written" : "to contain '\(text)'") (it has \(contents.map { "\($0.utf8.count) bytes" } ?? "not been written")): \(context)")
            }
        }
    }
}

extension ReadmeTourTests.Run {
    var isTheDemo: Bool { if case .theDemo = self { true } else { false } }
}

extension InteractiveDemoTests.Terminal {
    func waitFor(_ texts: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard let first = texts.first else { return }
        switch texts.count {
        case 1: try waitFor(first, sourceLocation: sourceLocation)
        default:
            // waitFor is variadic; check the texts together by waiting for each while the others show.
            for text in texts { try waitFor(text, sourceLocation: sourceLocation) }
            let shown = try screen()
            for text in texts where !shown.contains(text) {
                Issue.record("the terminal does not show '\(text)' with \(texts) any more:\n\(shown)", sourceLocation: sourceLocation)
            }
        }
    }
}

/// A free TCP port on 127.0.0.1 (for `scripts/demo --web --port`).
func freePort() -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
        }
    }
    return bound ? Int(UInt16(bigEndian: address.sin_port)) : 8471
}

/// `bash -e -o pipefail -c LINE` in a directory (`cd DIR && eval LINE`), its stdout and stderr in one file (read as a terminal
/// shows them), in a process group of its own so that SIGINT reaches the whole line as Ctrl-C does.
final class ShellProcess {
    let pid: pid_t
    private let outputPath: String
    private let scratch = makeTemporaryDirectory()
    private var status: Int32?

    init(_ line: String, directory: String, environment: [String: String]) throws {
        outputPath = scratch + "/output"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group (SIGINT to the group, as a terminal's Ctrl-C), default signal handling.
        var defaults = sigset_t(), none = sigset_t()
        sigfillset(&defaults)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        // In `directory` (cd, then the line as typed: eval keeps its quotes, pipes and lists as they are).
        let arguments: [String] = ["/bin/bash", "-e", "-o", "pipefail", "-c", #"cd "$1" && eval "$2""#, "bash", directory, line]
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, "/bin/bash", &actions, &attributes, argv, envp)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        pid = child
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// Everything it printed so far.
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Ctrl-C: SIGINT to its process group.
    func interrupt() { Glibc.kill(-pid, SIGINT) }

    func kill() {
        if status == nil {
            Glibc.kill(-pid, SIGKILL)
            _ = waitForExit(timeoutSeconds: 5)
        }
    }

    /// Polls (every 20 ms, up to the deadline) until its output contains `text`; false if it exits first
    /// without printing it.
    func waitForOutput(_ text: String, timeoutSeconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if output.contains(text) { return true }
            if reap() != nil { return output.contains(text) }
            usleep(20_000)
        }
        return output.contains(text)
    }

    /// Its exit status, waiting up to `timeoutSeconds`; nil if it still runs.
    func waitForExit(timeoutSeconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if let status = reap() { return status }
            usleep(20_000)
        }
        return reap()
    }

    /// The exit status once it exited (128 + the signal if a signal ended it), without blocking.
    private func reap() -> Int32? {
        if let status { return status }
        var raw: Int32 = 0
        let result = waitpid(pid, &raw, WNOHANG)
        guard result == pid else { return nil }
        let signal = raw & 0x7f
        status = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
        return status
    }
}
