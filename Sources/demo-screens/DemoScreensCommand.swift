import ArgumentParser
import DemoScreens
import FlowWire
import Foundation
import ScreenKit

/// `demo-screens`: hosts every demo screen kind, interactively in a terminal
/// or following a script.
@main
struct DemoScreensCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-screens",
        abstract: "Host the flowd demo's screens: in this terminal, or following a script.",
        discussion: """
            Attached (default): connects to flowd's socket and hosts every demo screen kind.
            Spawned: when flowd starts it with FLOWD_SOCKET_FD and FLOWD_TOKEN set, it hosts that one screen. \
            With $DEMO_SCREENS_SCRIPT it runs the script's steps for its screen as rules; with \
            $DEMO_SCREENS_PROGRESS=FILE too, the spawned processes of one walk share their progress in FILE \
            and follow the script in order.

            Interactive (no script, a terminal on stdin, not spawned): draws the visible screen here. \
            Keys: 1-9 press a button, \
            e edit the text field (Enter sends), b back, t next tab, c close modal, q quit (flowd keeps \
            running; scripts/demo stops it). The event log goes to --log FILE, if given.

            Script format (docs/demo.md): one step per line, `on KIND ["TITLE"] [body "TEXT"] ACTION [ARG]`.

            Examples:
              demo-screens --log /tmp/demo-screens.log
              demo-screens --script scripts/demo-walkthrough.txt
              DEMO_SCREENS_SCRIPT=walk.txt flowd --spawn-screens demo-screens --screen-env DEMO_SCREENS_SCRIPT
              DEMO_SCREENS_SCRIPT=walk.txt DEMO_SCREENS_PROGRESS=/tmp/walk.progress flowd --spawn-screens demo-screens \\
                --screen-env DEMO_SCREENS_SCRIPT,DEMO_SCREENS_PROGRESS
            """,
        version: FlowdVersion.string)

    @Option(name: .long, help: ArgumentHelp("flowd's socket (attached mode).", valueName: "path"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("Follow this script instead of a person ($DEMO_SCREENS_SCRIPT when spawned).", valueName: "file"))
    var script: String?

    @Option(name: .long, help: ArgumentHelp("Seconds each script step may wait for its screen.", valueName: "seconds"))
    var stepTimeout = Double(ScriptRunner.defaultStepTimeoutMilliseconds) / 1000

    @Flag(name: .long, help: "Print no event log, only failures.")
    var quiet = false

    @Option(name: .long, help: ArgumentHelp("Append the event log to this file (interactive mode: the terminal shows the screen instead).", valueName: "file"))
    var log: String?

    @Option(name: .long, help: ArgumentHelp("Interactive mode: a line shown under the keys (e.g. how to attach flowctl).", valueName: "text"))
    var note: String = ""

    @Option(name: .long, help: ArgumentHelp("Interactive mode: the line that replaces --note at the first key.", valueName: "text"))
    var thenNote: String?

    func validate() throws {
        guard stepTimeout > 0 else { throw ValidationError("--step-timeout must be positive, got \(stepTimeout)") }
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let spawned = ScreenHost.isSpawned(environment: environment)
        let scriptPath = script ?? (spawned ? environment["DEMO_SCREENS_SCRIPT"] : nil)
        let parsed: Script?
        if let scriptPath {
            guard let text = try? String(contentsOfFile: scriptPath, encoding: .utf8) else {
                throw ValidationError("cannot read the script \(scriptPath)")
            }
            parsed = try Script(parsing: text)
        } else {
            parsed = nil
        }

        let deck = CardDeck()
        let host: ScreenHost
        do {
            if spawned {
                host = try ScreenHost.fromEnvironment(name: "demo-screens")
            } else {
                host = try ScreenHost.connect(path: socket, name: "demo-screens", provides: DemoScreens.kinds)
            }
        } catch {
            writeToStandardError("demo-screens: \(error)\n")
            throw ExitCode(69)
        }
        deck.register(on: host)
        let quiet = self.quiet
        let prefix = spawned ? "[pid \(getpid())] " : ""
        // Interactive only for a person: no script, not spawned, and a terminal on stdin.
        // Otherwise (a spawned screen without a script, stdin not a terminal) serve silently.
        let interactive = parsed == nil && !spawned && isatty(0) == 1
        var logFile: UnsafeMutablePointer<FILE>?
        if let path = self.log {
            guard let file = fopen(path, "a") else {
                throw ValidationError("cannot open the log file \(path): \(String(cString: strerror(errno)))")
            }
            logFile = file
        }
        let sink = logFile
        let log: (String) -> Void = { line in
            guard !quiet else { return }
            if let sink {
                fputs(prefix + line + "\n", sink)
                fflush(sink)
            }
            if !interactive {
                print(prefix + line)
                fflush(nil)
            }
        }
        defer { if let logFile { fclose(logFile) } }
        deck.onChange = { log($0.logLine) }
        host.onError = { error in log("! \(error)") }
        host.onReconnect = { event in log("reconnect: \(event)") }

        guard let parsed else {
            guard interactive else {
                log("session ended: \(try host.run())")
                return
            }
            let terminal = TerminalHost(host: host, deck: deck, color: TerminalHost.wantsColor(environment: environment), note: note,
                                         laterNote: thenNote)
            do {
                let reason = try terminal.run()
                log("session ended: \(reason)")
                print(reason == .stopped ? "demo-screens: you quit; bye." : "demo-screens: flowd ended the session (\(reason)).")
            } catch let failure as TerminalHost.Failure {
                writeToStandardError("demo-screens: \(failure)\n")
                throw ExitCode(64)
            }
            return
        }
        let runner = ScriptRunner(host: host, deck: deck, script: parsed, stepTimeoutMilliseconds: Int(stepTimeout * 1000), log: log)
        do {
            let reason: ExitReason
            if spawned, let progressPath = environment["DEMO_SCREENS_PROGRESS"] {
                reason = try runner.runInSharedOrder(progress: try ScriptProgressFile(path: progressPath))
            } else {
                reason = spawned ? try runner.runAsRules() : try runner.runInOrder()
            }
            log("session ended: \(reason)")
        } catch let failure as ScriptRunner.Failure {
            writeToStandardError("demo-screens: \(failure)\n")
            throw ExitCode(1)
        } catch let failure as ScriptProgressFile.Failure {
            writeToStandardError("demo-screens: \(failure)\n")
            throw ExitCode(1)
        }
    }
}

/// `write(2)` to descriptor 2 until all of `text` is written: FileHandle.standardError's `write`
/// without full Foundation (FileHandle would link it, and ICU's data, into a static demo-screens).
private func writeToStandardError(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}
