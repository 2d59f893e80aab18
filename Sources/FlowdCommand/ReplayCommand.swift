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

            Exit codes: 0 same placements; 1 a difference (the first one is printed; a starting state that \
            does not rebuild in the app among them) or a recording that cannot be replayed against the app; \
            64 bad arguments (an app this command does not run); 65 a file that is not a recording (damaged, \
            cut short, a starting state that does not decode, another file); 66 a file that cannot be read.

            Examples:
              flowctl record bug.rec &  ...reproduce the bug...  ; kill -INT %1
              \(CommandContext.current.command.name) replay bug.rec              # the app named in the recording
              \(CommandContext.current.command.name) replay bug.rec --app \(CommandContext.current.command.apps[0].name)
            """)
    }

    @Argument(help: ArgumentHelp("The file `flowctl record` wrote.", valueName: "file"))
    var file: String

    @Option(name: .long, help: ArgumentHelp("The app to replay against (default: the app named in the recording).", valueName: "name"))
    var app: String?

    func validate() throws {
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
            FileHandle.standardError.write(Data("\(context.command.name) replay: \(error)\n".utf8))
            throw ExitCode(FileManager.default.isReadableFile(atPath: file) ? 65 : 66)
        }
        let name = app ?? recording.tree.app
        guard let chosen = context.command.app(named: name) else {
            let advice = "pass --app NAME (\(context.command.appChoices))"
            FileHandle.standardError.write(Data(
                "\(context.command.name) replay: the recording ran app '\(name)', which \(context.command.name) does not run; \(advice)\n".utf8))
            throw ExitCode(64)
        }
        do {
            let result = try Replay.run(recording, app: chosen.make())
            if let difference = result.difference {
                context.output("different placements after \(result.compared) equal ones (\(result.inputs) inputs replayed): \(difference)")
                throw ExitCode(1)
            }
            context.output("same placements (\(result.compared)); \(result.inputs) inputs replayed against app \(name)")
        } catch let error as ReplayError {
            FileHandle.standardError.write(Data("\(context.command.name) replay: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
