import ArgumentParser
import FlowApp
import FlowDaemon
import Foundation

/// `flowd replay FILE`: runs an app in-process on fake screens, feeds
/// it the inputs of a `flowctl record` file and compares the placements.
struct ReplayCommand: ParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a `flowctl record` file against an app on fake screens and compare the placements.",
        discussion: """
            The app runs in this process (no socket, no screens): its screens acknowledge everything at once. \
            The state the recording starts from is rebuilt first, as a restart restores a journal (a \
            recording without one, made by an older flowctl, starts from the app's start). Then the \
            recorded outputs, injected outputs, user navigation and terminations are fed in order, by \
            screen id (ids are the same for the same app and inputs), and every Place, Update, \
            PlacementChanged and Dismiss the flows make is compared with the recorded one (kind, screen, \
            serial, placement path and state).

            --serve starts a daemon at a moment of the recording instead: the state it starts from and its \
            first --until inputs (default: all) are written as a new journal (at --state after --, else in a \
            new temporary folder, removed when serving ends), and `flowd serve` starts on it with the arguments after --, restoring \
            that moment as after a restart. Hosts attach and go on from there, so a bug report's reader \
            walks on from the broken moment. `flowctl history --export` writes such a file from any range \
            of a running daemon's history.

            Exit codes: 0 same placements; 1 a difference (the first one is printed; a starting state that \
            does not rebuild in the app among them) or a recording that cannot be replayed against the app; \
            64 bad arguments (an app this command does not run); 65 a file that is not a recording (damaged, \
            cut short, a starting state that does not decode, another file); 66 a file that cannot be read.

            Examples:
              flowctl record bug.rec &  ...reproduce the bug...  ; kill -INT %1
              \(CommandContext.current.command.name) replay bug.rec              # the app named in the recording
              \(CommandContext.current.command.name) replay bug.rec --app \(CommandContext.current.command.apps[0].name)
              \(CommandContext.current.command.name) replay bug.rec --until 12 --serve -- --socket "${XDG_RUNTIME_DIR:-/tmp/flowd-$(id -u)}/bug.sock"
            """)
    }

    @Argument(help: ArgumentHelp("The file `flowctl record` wrote.", valueName: "file"))
    var file: String

    @Option(name: .long, help: ArgumentHelp("The app to replay against (default: the app named in the recording).", valueName: "name"))
    var app: String?

    @Option(name: .long, help: ArgumentHelp("With --serve: start at the moment after this many of the recording's inputs (default: all).", valueName: "n"))
    var until: Int?

    @Flag(name: .long, help: "Start a daemon at that moment (restored from a journal made of the recording) instead of comparing.")
    var serve = false

    @Argument(parsing: .postTerminator, help: ArgumentHelp("With --serve: arguments for `flowd serve` (after --).", valueName: "serve-arguments"))
    var serveArguments: [String] = []

    func validate() throws {
        if let until, until < 0 { throw ValidationError("--until must be a number of inputs, 0 or more, got \(until)") }
        if until != nil && !serve { throw ValidationError("--until goes with --serve: it says at which moment the daemon starts") }
        if !serveArguments.isEmpty && !serve { throw ValidationError("arguments after -- go to `flowd serve`, with --serve") }
        if serveArguments.contains(where: { $0 == "--app" || $0.hasPrefix("--app=") }) {
            throw ValidationError("give the app as replay's own --app (before --), not to serve")
        }
        if serveArguments.contains("--no-state") { throw ValidationError("--serve restores from a journal: it cannot take --no-state") }
        if serveArguments.count(where: { $0 == "--state" || $0.hasPrefix("--state=") }) > 1 {
            throw ValidationError("--state is given more than once after --; give the journal's path once")
        }
        let command = CommandContext.current.command
        if let app, command.app(named: app) == nil {
            throw ValidationError("no app named '\(app)'; \(command.appChoices)")
        }
    }

    func run() throws {
        let context = CommandContext.current
        // What is wrong with the file, with the app and with the replay are told apart by the exit code.
        let recording: Recording
        do {
            recording = try Recording.read(path: file)
        } catch {
            StandardError.write("\(context.command.name) replay: \(error)\n")
            throw ExitCode(FileManager.default.isReadableFile(atPath: file) ? 65 : 66)
        }
        let name = app ?? recording.tree.app
        guard let chosen = context.command.app(named: name) else {
            let advice = "pass --app NAME (\(context.command.appChoices))"
            StandardError.write(
                "\(context.command.name) replay: the recording ran app '\(name)', which \(context.command.name) does not run; \(advice)\n")
            throw ExitCode(64)
        }
        if serve {
            try serveMoment(of: recording, app: chosen.make(), name: name, context: context)
            return
        }
        do {
            let result = try Replay.run(recording, app: chosen.make())
            if let difference = result.difference {
                context.output("different placements after \(result.compared) equal ones (\(result.inputs) inputs replayed): \(difference)")
                throw ExitCode(1)
            }
            context.output("same placements (\(result.compared)); \(result.inputs) inputs replayed against app \(name)")
        } catch let error as ReplayError {
            StandardError.write("\(context.command.name) replay: \(error)\n")
            throw ExitCode(1)
        }
    }

    /// The `--state` among `flowd serve`'s arguments, if any.
    static func statePath(in arguments: [String]) -> String? {
        if let index = arguments.firstIndex(of: "--state"), index + 1 < arguments.count { return arguments[index + 1] }
        return arguments.first { $0.hasPrefix("--state=") }.map { String($0.dropFirst("--state=".count)) }
    }

    /// Writes the journal of the moment and runs `flowd serve` on it.
    private func serveMoment(of recording: Recording, app: FlowApp.App, name: String, context: CommandContext) throws {
        let made: ReplayedJournal.Records
        do {
            made = try ReplayedJournal.records(of: recording, app: app, until: until)
        } catch {
            StandardError.write("\(context.command.name) replay: \(error)\n")
            throw ExitCode(1)
        }
        if let until, until > made.recordedInputs {
            StandardError.write(
                "\(context.command.name) replay: --until \(until): the recording holds \(made.recordedInputs) inputs; give 0 to \(made.recordedInputs)\n")
            throw ExitCode(64)
        }
        var arguments = serveArguments
        let path: String
        // The folder made for the journal, removed with it when serving ends (however it ends but a second Ctrl-C).
        var folder: String?
        defer { if let folder { try? FileManager.default.removeItem(atPath: folder) } }
        if let given = Self.statePath(in: arguments) {
            path = given
        } else {
            // A folder of this process's own (mkdtemp: mode 0700, never one that was there).
            var template = Array((FileManager.default.temporaryDirectory.path + "/flowd-replay-XXXXXX").utf8CString)
            guard let made = mkdtemp(&template) else {
                StandardError.write("\(context.command.name) replay: cannot make a folder for the journal: \(String(cString: strerror(errno)))\n")
                throw ExitCode(1)
            }
            folder = String(cString: made)
            path = folder! + "/" + (file.split(separator: "/").last.map(String.init) ?? file) + ".journal"
            arguments += ["--state", path]
        }
        do {
            try ReplayedJournal.write(made.records, app: app, to: path)
        } catch {
            StandardError.write("\(context.command.name) replay: \(error)\n")
            throw ExitCode(1)
        }
        // On stderr with the daemon's log (stdout is the replay's verdict, and there is none here).
        StandardError.write("""
            \(context.command.name) replay: serving app \(name) at the moment after input \(made.inputs) of \(made.recordedInputs) of \(file), \
            restored from the journal \(path)\n
            """)
        let command = try ServeCommand.parse(["--app", name] + arguments)
        try command.run()
    }
}
