import ArgumentParser
import DemoApps
import FlowApp
import FlowDaemon
import Foundation

/// `flowd replay FILE`: runs a built-in app in-process on fake screens, feeds
/// it the inputs of a `flowctl record` file and compares the placements.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay a `flowctl record` file against an app on fake screens and compare the placements.",
        discussion: """
            The app runs in this process (no socket, no screens): its screens acknowledge everything at once. \
            The recorded outputs, injected outputs, user navigation and terminations are fed in order, by \
            screen id (ids are the same for the same app and inputs), and every Place, Update, \
            PlacementChanged and Dismiss the flows make is compared with the recorded one (kind, screen, \
            serial, placement path and state).

            Exit codes: 0 same placements, 1 a difference (the first one is printed) or a recording that \
            cannot be replayed, 64 bad arguments.

            Examples:
              flowctl record bug.rec &  ...reproduce the bug...  ; kill -INT %1
              flowd replay bug.rec                     # the app named in the recording
              flowd replay bug.rec --app leave-in-place
            """)

    @Argument(help: ArgumentHelp("The file `flowctl record` wrote.", valueName: "file"))
    var file: String

    @Option(name: .long, help: ArgumentHelp("The built-in app to replay against (default: the app named in the recording).", valueName: "name"))
    var app: String?

    func validate() throws {
        if let app, BuiltInApps.named(app) == nil {
            throw ValidationError("no built-in app named '\(app)'; choose one of: \(BuiltInApps.all.map(\.name).joined(separator: ", "))")
        }
    }

    func run() throws {
        do {
            let recording = try Recording.read(path: file)
            let name = app ?? recording.tree.app
            guard let chosen = BuiltInApps.named(name) else {
                throw ReplayError("the recording ran app '\(name)', which is not built in; pass --app NAME (one of: \(BuiltInApps.all.map(\.name).joined(separator: ", ")))")
            }
            let result = try FlowDaemon.Replay.run(recording, app: chosen)
            if let difference = result.difference {
                print("different placements after \(result.compared) equal ones (\(result.inputs) inputs replayed): \(difference)")
                throw ExitCode(1)
            }
            print("same placements (\(result.compared)); \(result.inputs) inputs replayed against app \(name)")
        } catch let error as ReplayError {
            FileHandle.standardError.write(Data("flowd replay: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
