import ArgumentParser
import DemoScreens
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
            Spawned: when flowd starts it with FLOWD_SOCKET_FD and FLOWD_TOKEN set, it hosts that one screen.

            Script format (docs/demo.md): one step per line, `on KIND ["TITLE"] ACTION [ARG]`.

            Examples:
              demo-screens --script scripts/demo-walkthrough.txt
              DEMO_SCREENS_SCRIPT=walk.txt flowd --spawn-screens demo-screens
            """)

    @Option(name: .long, help: ArgumentHelp("flowd's socket (attached mode).", valueName: "path"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("Follow this script instead of a person ($DEMO_SCREENS_SCRIPT when spawned).", valueName: "file"))
    var script: String?

    @Option(name: .long, help: ArgumentHelp("Seconds each script step may wait for its screen.", valueName: "seconds"))
    var stepTimeout: Double = 10

    @Flag(name: .long, help: "Print no event log, only failures.")
    var quiet = false

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
            FileHandle.standardError.write(Data("demo-screens: \(error)\n".utf8))
            throw ExitCode(69)
        }
        deck.register(on: host)
        let quiet = self.quiet
        let prefix = spawned ? "[pid \(getpid())] " : ""
        let log: (String) -> Void = { line in
            guard !quiet else { return }
            print(prefix + line)
            fflush(nil)
        }
        deck.onChange = { log($0.logLine) }
        host.onError = { error in log("! \(error)") }

        guard let parsed else {
            let terminal = TerminalHost(host: host, deck: deck)
            let reason = try terminal.run()
            log("session ended: \(reason)")
            return
        }
        let runner = ScriptRunner(host: host, deck: deck, script: parsed, stepTimeoutMilliseconds: Int(stepTimeout * 1000), log: log)
        do {
            let reason = spawned ? try runner.runAsRules() : try runner.runInOrder()
            log("session ended: \(reason)")
        } catch let failure as ScriptRunner.Failure {
            FileHandle.standardError.write(Data("demo-screens: \(failure)\n".utf8))
            throw ExitCode(1)
        }
    }
}
