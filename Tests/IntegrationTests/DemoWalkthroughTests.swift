import FlowdTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The repository's root (for scripts/).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL.path

/// The walk-through: the scripted person's steps (docs/demo.md).
let demoWalkthroughPath = repositoryRoot + "/scripts/demo-walkthrough.txt"

/// What demo-screens prints when the walk-through reaches every app's result and flowd ends it.
let demoWalkResults = [
    "updated: Tutorial completed", "updated: Tutorial skipped",
    "updated: Personal profile: saved Grace (dismiss animated)",
    "updated: Business profile: Initech owned by Bill (dismiss without animation)",
    "updated: Personal profile: saved Ada (leave on the stack)",
    "updated: Student editor: Ann 33, Bob 21 (dismiss animated)",
    "updated: Contacts and events: closed (dismiss animated)",
    "updated: Contacts and events: modal closed by the user (dismiss animated)",
    "updated: Login: logged in as ann (dismiss animated)",
    "session ended: shutdown(ScreenKit.ShutdownReason.appFinished)",
]

/// The demo's headless walk-through: flowd's launcher with demo-screens
/// following scripts/demo-walkthrough.txt (every app to its end; the login
/// screens in Python when python3 and protobuf are there, else in Swift).
@Suite("demo walk-through")
struct DemoWalkthroughTests {
    @Test(arguments: [true, false])
    func everyDemoAppReachesItsResult(python: Bool) throws {
        let walk = demoWalkthroughPath
        var environment = ["DEMO_SCREENS_SCRIPT": walk, "FLOWD_DEMO_DIR": repositoryRoot + "/scripts/screens"]
        if !python { environment["FLOWD_PYTHON_SCREENS"] = "0" }
        // A long spawn grace: a slow machine must not turn a Python screen's late exit into SIGTERM.
        let daemon = try DaemonProcess(arguments: ["--app", "launcher", "--spawn-grace", "30"], environment: environment)
        let screens = try ProductRun.run("demo-screens", ["--socket", daemon.socketPath, "--script", walk, "--step-timeout", "20"])
        #expect(screens.status == 0, "\(screens.stderr)\n\(screens.stdout)")
        #expect(daemon.waitForExit() == 0, "the walk ends with Quit: flowd exits 0 on its own")
        for result in demoWalkResults {
            #expect(screens.stdout.contains(result), "missing \(result)")
        }
        let log = daemon.logText
        #expect(log.contains("app launcher finished with Login: logged in as ann (dismiss animated)"), "\(log)")
        let pythonRan = log.contains("[python login pid")
        if python && pythonRan {
            #expect(log.contains("[python login-success pid"))
            // Both Python screens exit 0. Their lines may still be in the pipe when flowd's exit is seen
            // (the children share its stderr): wait for them rather than read a snapshot.
            for exited in ["how=status 0 kind=login pid", "how=status 0 kind=login-success pid"] {
                #expect(daemon.waitForLog(exited, timeoutSeconds: 20), "\(exited): \(daemon.logText.split(separator: "\n").filter { $0.contains("kind=login") || $0.contains("python") }.joined(separator: "\n"))")
            }
            #expect(screens.stdout.contains("login: the visible screen is hosted by another process; left to it"))
        } else {
            #expect(!pythonRan)
            #expect(screens.stdout.contains(#"+ login "Log in" at modal › stack depth 1"#), "the Swift host shows login")
        }
        if !python { #expect(log.contains("notice: FLOWD_PYTHON_SCREENS=0")) }
    }
}

/// A person at an 80x24 terminal (tmux) runs scripts/demo and presses keys.
// Skipped without tmux only off CI: scripts/test installs it, and on CI a missing tmux fails.
@Suite("interactive demo", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")
                                        || FileManager.default.isExecutableFile(atPath: "/usr/local/bin/tmux")
                                        || ProcessInfo.processInfo.environment["CI"] == "true"))
struct InteractiveDemoTests {
    struct TerminalTimeout: Error {}

    /// A tmux session of 80x24 running one command; killed when the value goes away.
    final class Terminal {
        let name = "flowd-demo-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

        /// The tmux server's pid, to kill it even if its socket is gone.
        private var serverPID: pid_t = 0

        init(command: String, width: Int = 80) throws {
            try tmux(["new-session", "-d", "-s", name, "-x", "\(width)", "-y", "24", command], capture: false)
            serverPID = pid_t(try tmux(["display-message", "-p", "-t", name, "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }

        deinit {
            _ = try? tmux(["kill-server"], capture: false)
            if serverPID > 0 { kill(serverPID, SIGKILL) }
        }

        func press(_ keys: String...) throws { try tmux(["send-keys", "-t", name] + keys) }

        /// What the person sees now.
        func screen() throws -> String { try tmux(["capture-pane", "-p", "-t", name]) }

        /// Waits until the screen shows every text (polling what tmux draws: there is no event to wait on).
        func waitFor(_ texts: String..., absent: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let deadline = Date().addingTimeInterval(30)
            var shown = ""
            while Date() < deadline {
                shown = try screen()
                if texts.allSatisfy(shown.contains) && !(absent.map(shown.contains) ?? false) { return }
                usleep(50_000)
            }
            Issue.record("the terminal never showed \(texts) (without \(absent ?? "-")); it shows:\n\(shown)", sourceLocation: sourceLocation)
            throw TerminalTimeout()
        }

        /// python3 on PATH, if any.
        static let python3: String? = {
            for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
                let candidate = "\(directory)/python3"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
            return nil
        }()

        /// Runs `tmux -L NAME ARGUMENTS` (a private server per test) with posix_spawn and waitpid:
        /// Foundation's Process can miss the exit of a client whose forked server lives on.
        @discardableResult
        private func tmux(_ arguments: [String], capture: Bool = true) throws -> String {
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { throw TerminalTimeout() }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            if capture {
                posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
            } else {
                posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            }
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addclose(&actions, fds[0])
            posix_spawn_file_actions_addclose(&actions, fds[1])
            // The tmux server lives on: it must not keep descriptors of this test process (pipes
            // that tests running in parallel wait to see closed), so python3 closes them before exec.
            let tmuxArguments = ["tmux", "-L", name] + arguments
            let python = Self.python3
            let command = python.map { [$0, "-c", "import os, sys; os.closerange(3, 1 << 16); os.execvp(sys.argv[1], sys.argv[1:])"] + tmuxArguments } ?? tmuxArguments
            let argv = command.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            let spawned = posix_spawnp(&pid, command[0], &actions, nil, argv, environ)
            close(fds[1])
            defer { close(fds[0]) }
            guard spawned == 0 else { throw TerminalTimeout() }
            var data = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while capture {
                let count = read(fds[0], &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                data += buffer.prefix(count)
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return String(decoding: data, as: UTF8.self)
        }
    }

    @Test func aPersonWalksTheTutorialSwitchesTabsAndQuits() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/flowd.sock"
        let terminal = try Terminal(command: """
            cd '\(repositoryRoot)' && FLOWD_SOCKET='\(socket)' FLOWD_DEMO_LOGS='\(directory)' XDG_STATE_HOME='\(directory)/state' NO_COLOR=1 scripts/demo --debug --no-build; \
            echo "DEMO-EXITED $?"; stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo; read
            """)
        try terminal.waitFor("flowd demos", "[8] Quit", "keys: 1-8 press · q quit", "watch: .build/debug/flowctl watch --socket",
                             "PATH for flowd and flowctl: export PATH=")
        #expect(!(try terminal.screen()).contains("\u{1B}"), "NO_COLOR: no escape sequences reach the screen")
        try terminal.press("1")
        try terminal.waitFor("Welcome", "[2] Next", "stack depth 2")
        try terminal.press("2")
        try terminal.waitFor("All set", "stack depth 3", "b back")
        try terminal.press("b")
        try terminal.waitFor("Welcome", "stack depth 2", absent: "All set")
        try terminal.press("2")
        try terminal.waitFor("All set")
        try terminal.press("1")
        try terminal.waitFor("Tutorial completed", "stack depth 1")
        try terminal.press("6")
        try terminal.waitFor("Contacts", "modal › tab 1/2 › stack depth 1", "t next tab")
        try terminal.press("t")
        try terminal.waitFor("Events", "modal › tab 2/2 › stack depth 1")
        try terminal.press("t")
        try terminal.waitFor("Contacts", "modal › tab 1/2")
        try terminal.press("c")
        try terminal.waitFor("Contacts and events: modal closed by the user")
        try terminal.press("q")
        try terminal.waitFor("DEMO-EXITED 0", "flowd stopped (exit 0)", "icanon echo")
        #expect(!FileManager.default.fileExists(atPath: socket), "flowd removed its socket: it stopped cleanly")
        // A normal quit reads as one in flowd's log: nothing lost, failed or unacknowledged.
        let log = try String(contentsOfFile: directory + "/flowd.log", encoding: .utf8)
        for alarming in ["lost", "ended:", "warning", "error", "critical", "acknowledged=false", "failed"] {
            #expect(!log.contains(alarming), "a normal quit logged '\(alarming)':\n\(log)")
        }
        #expect(log.contains("app launcher stopped with flowd; its journal is kept for the next start"), "\(log)")
        #expect(try processes(matching: "--socket \(socket)").isEmpty, "flowd and demo-screens are gone")
    }

    /// The Python login screen draws as wide as the terminal, with the watch line the Swift screens show.
    @Test(.enabled(if: Terminal.python3 != nil || ProcessInfo.processInfo.environment["CI"] == "true"))
    func thePythonScreenFillsAWideTerminalAndShowsTheWatchLine() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/flowd.sock"
        let terminal = try Terminal(command: """
            cd '\(repositoryRoot)' && FLOWD_SOCKET='\(socket)' FLOWD_DEMO_LOGS='\(directory)' XDG_STATE_HOME='\(directory)/state' NO_COLOR=1 scripts/demo --debug --no-build; \
            echo "DEMO-EXITED $?"; read
            """, width: 120)
        try terminal.waitFor("flowd demos", "[8] Quit")
        try terminal.press("7")
        try terminal.waitFor("(Python, pid", "keys: 1-2 press", "watch: .build/debug/flowctl watch --socket \(socket)")
        let screen = try terminal.screen()
        #expect(screen.contains(String(repeating: "─", count: 120)), "a 120-column rule:\n\(screen)")
        try terminal.press("q")
        try terminal.waitFor("DEMO-EXITED")
    }

    @Test func afterAKillOfFlowdTheNextDemoPutsThePersonBackOnTheSameScreen() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/flowd.sock"
        let command = """
            cd '\(repositoryRoot)' && FLOWD_SOCKET='\(socket)' FLOWD_DEMO_LOGS='\(directory)' NO_COLOR=1 scripts/demo --debug --no-build; \
            echo "DEMO-EXITED $?"; read
            """
        do {
            let terminal = try Terminal(command: command)
            try terminal.waitFor("flowd demos", "[8] Quit")
            try terminal.press("1")
            try terminal.waitFor("Welcome", "[2] Next", "stack depth 2")
            try terminal.press("2")
            try terminal.waitFor("All set", "stack depth 3")
            // The daemon dies (a crash, an OOM kill): SIGKILL, no chance to save anything more.
            let flowd = try processes(matching: "--socket \(socket) --state").split(separator: "\n")
                .first { $0.contains("/flowd ") }.flatMap { Int32($0.prefix { $0 != " " }) }
            try kill(#require(flowd, "flowd's pid"), SIGKILL)
            try terminal.press("q")
            try terminal.waitFor("DEMO-EXITED")
        }
        let again = try Terminal(command: command)
        try again.waitFor("All set", "stack depth 3", "flowd restored where you were")
        // The stack behind it is real: back walks through the restored flows.
        try again.press("b")
        try again.waitFor("Welcome", "stack depth 2", absent: "All set")
        // The news of the restore gives way to the watch line at the first key.
        try again.waitFor("watch: ", absent: "flowd restored where you were")
        try again.press("1")
        try again.waitFor("Tutorial skipped", "stack depth 1")
        try again.press("q")
        try again.waitFor("DEMO-EXITED 0", "flowd stopped (exit 0)")
        // --fresh starts over from the menu.
        let fresh = try Terminal(command: command.replacingOccurrences(of: "--no-build;", with: "--no-build --fresh;"))
        try fresh.waitFor("flowd demos", "Choose a demo", "stack depth 1")
        try fresh.press("q")
        try fresh.waitFor("DEMO-EXITED 0")
    }

    @Test func aLinkOpenedFromAnotherTerminalShowsItsScreenAndBackWalksTheRealStack() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/flowd.sock"
        let terminal = try Terminal(command: """
            cd '\(repositoryRoot)' && FLOWD_SOCKET='\(socket)' FLOWD_DEMO_LOGS='\(directory)' NO_COLOR=1 scripts/demo --debug --no-build; \
            echo "DEMO-EXITED $?"; read
            """)
        try terminal.waitFor("flowd demos", "[8] Quit")
        let run = try ProductRun.run("flowctl", ["open", "students/Bob/age", "--socket", socket])
        #expect(run.status == 0, "\(run.stderr)")
        try terminal.waitFor("Age", "stack depth 4")
        try terminal.press("b")
        try terminal.waitFor("Edit Bob", "stack depth 3")
        try terminal.press("b")
        try terminal.waitFor("Students", "stack depth 2")
        try terminal.press("b")
        try terminal.waitFor("flowd demos", "stack depth 1")
        try terminal.press("q")
        try terminal.waitFor("DEMO-EXITED 0")
    }

    /// The README's way to kill the demo's flowd (docs/demo.md says the same) kills that daemon and no
    /// other: a flowd of something else, running meanwhile, still answers. The demo ends without bash's
    /// "Killed" line, and says what happened.
    @Test func theDocumentedKillOfTheDemosFlowdLeavesAnotherFlowdAlone() throws {
        let readme = try String(contentsOfFile: repositoryRoot + "/README.md", encoding: .utf8)
        let demoPage = try String(contentsOfFile: repositoryRoot + "/docs/demo.md", encoding: .utf8)
        let command = try #require(readme.firstMatch(of: /`(kill -9 [^`]*flowd[^`]*)`/).map { String($0.1) },
                                   "README.md names the command that kills the demo's flowd")
        #expect(demoPage.contains("`\(command)`"), "docs/demo.md gives the same command as README.md: \(command)")
        let bystander = try DaemonProcess()
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The command runs where the README's reader is, the checkout: its .build/demo is the demo's logs folder.
        let logs = directory + "/checkout/.build/demo"
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        let terminal = try Terminal(command: """
            cd '\(repositoryRoot)' && FLOWD_SOCKET='\(directory)/flowd.sock' FLOWD_DEMO_LOGS='\(logs)' XDG_STATE_HOME='\(directory)/state' NO_COLOR=1 scripts/demo --debug --no-build; \
            echo "DEMO-EXITED $?"; read
            """)
        try terminal.waitFor("flowd demos", "[8] Quit")
        try terminal.press("1")
        try terminal.waitFor("Welcome", "stack depth 2")
        let kill = try ShellProcess(command, directory: directory + "/checkout", environment: ProcessInfo.processInfo.environment)
        #expect(kill.waitForExit(timeoutSeconds: 30) == 0, "\(command): \(kill.output)")
        try terminal.waitFor("DEMO-EXITED 0", "demo: flowd was killed (signal 9)")
        let shown = try terminal.screen()
        #expect(!shown.contains("Killed"), "no job-control line from bash:\n\(shown)")
        #expect(!FileManager.default.fileExists(atPath: logs + "/flowd.pid"), "the pid file goes with the demo")
        let ping = try ProductRun.run("flowctl", ["ping", "--socket", bystander.socketPath])
        #expect(ping.status == 0 && ping.stdout.contains("pong from flowd"), "the other flowd lives on: \(ping.stderr)")
    }

    /// demo-screens SIGKILLed (docs/demo.md has the reader do it): the terminal comes back with echo and
    /// line editing, off the alternate screen, and the next demo starts on a sane terminal.
    @Test func aSIGKILLOfDemoScreensLeavesTheTerminalAsItWas() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let terminal = try Terminal(command: """
            cd '\(repositoryRoot)' && FLOWD_SOCKET='\(directory)/flowd.sock' FLOWD_DEMO_LOGS='\(directory)' XDG_STATE_HOME='\(directory)/state' NO_COLOR=1 scripts/demo --debug --no-build; \
            echo "DEMO-EXITED $?"; stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo; read
            """)
        try terminal.waitFor("flowd demos", "[8] Quit")
        let pid = try #require(Int32(String(contentsOfFile: directory + "/demo-screens.pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, SIGKILL) == 0)
        try terminal.waitFor("DEMO-EXITED 0", "demo: demo-screens was killed (signal 9); the terminal is restored", "icanon echo")
        let screen = try terminal.screen()
        #expect(!screen.contains("-icanon") && !screen.contains("-echo") && !screen.contains("Killed"), "\(screen)")
        #expect(!screen.contains("flowd demos"), "off the alternate screen:\n\(screen)")
    }

    /// A terminal that a killed program left raw before the demo started is sane after it: neither
    /// scripts/demo nor demo-screens keeps raw settings as the ones to put back.
    @Test func aTerminalLeftRawBeforeTheDemoIsSaneAfterIt() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let terminal = try Terminal(command: """
            stty -echo -icanon; cd '\(repositoryRoot)' && FLOWD_SOCKET='\(directory)/flowd.sock' FLOWD_DEMO_LOGS='\(directory)' XDG_STATE_HOME='\(directory)/state' NO_COLOR=1 scripts/demo --debug --no-build; \
            echo "DEMO-EXITED $?"; stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo; read
            """)
        try terminal.waitFor("flowd demos", "[8] Quit")
        try terminal.press("q")
        try terminal.waitFor("DEMO-EXITED 0", "icanon echo")
    }

    /// A journal flowd cannot restore is moved aside, and the demo says so on its screen (not only in flowd.log).
    @Test func aDamagedJournalMovedAsideIsSaidOnTheScreen() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(FileManager.default.createFile(atPath: directory + "/launcher.journal", contents: Data(repeating: 0x5a, count: 300)))
        let terminal = try Terminal(command: """
            cd '\(repositoryRoot)' && FLOWD_SOCKET='\(directory)/flowd.sock' FLOWD_DEMO_LOGS='\(directory)' XDG_STATE_HOME='\(directory)/state' NO_COLOR=1 scripts/demo --debug --no-build; \
            echo "DEMO-EXITED $?"; read
            """)
        try terminal.waitFor("flowd demos", "the journal could not be restored; flowd moved it aside to", "launcher.journal.refused-")
        try terminal.press("q")
        try terminal.waitFor("DEMO-EXITED 0")
    }

    /// The processes whose command line contains `pattern` (a scan of /proc,
    /// so no pipe to read to its end).
    private func processes(matching pattern: String) throws -> String {
        var found: [String] = []
        for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc") where Int32(entry) != nil && Int32(entry) != getpid() {
            guard let raw = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
            let line = String(decoding: raw.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            if line.contains(pattern) { found.append("\(entry) \(line)") }
        }
        return found.joined(separator: "\n")
    }
}
