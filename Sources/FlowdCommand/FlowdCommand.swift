import ArgumentParser
import FlowApp
import FlowWire
import Foundation

/// The whole `flowd` command line for a daemon executable of your own: `serve` (the default, every
/// option of `flowd serve`), `replay`, `describe`, `--list-apps`, `--help`, `--version`, and flowd's
/// exit codes (docs/daemon.md). The built-in `flowd` is one user of it:
///
/// ```swift
/// @main enum ShopDaemon {
///     static func main() { FlowdCommand.main(apps: [DaemonApp(name: "shop", summary: "the shop") { makeShopApp() }]) }
/// }
/// ```
public struct FlowdCommand: Sendable {
    /// The command's name in usage lines and messages (default: the executable's file name).
    public var name: String
    /// The apps `--app` chooses from; the first is the default.
    public var apps: [DaemonApp]
    /// What `--version` prints.
    public var version: String

    /// A command over `apps` (at least one; the first is the default `--app`).
    public init(name: String? = nil, apps: [DaemonApp], version: String = FlowdVersion.string) {
        precondition(!apps.isEmpty, "FlowdCommand needs at least one app")
        self.name = name ?? URL(fileURLWithPath: CommandLine.arguments.first ?? "flowd").lastPathComponent
        self.apps = apps
        self.version = version
    }

    /// What the daemon calls itself in `Welcome` (`flowctl ping`): `flowd 0.1.0` for flowd, else this
    /// command's name (and version, when it has its own) with flowd's version beside it.
    public var serverDescription: String {
        if name == "flowd" { return "flowd \(version)" }
        let own = version == FlowdVersion.string ? "" : " \(version)"
        return "\(name)\(own) (flowd \(FlowdVersion.string))"
    }

    /// Parses the process's arguments, runs the command and exits with flowd's exit codes.
    public static func main(name: String? = nil, apps: [DaemonApp], version: String = FlowdVersion.string) -> Never {
        let command = FlowdCommand(name: name, apps: apps, version: version)
        exit(command.run(Array(CommandLine.arguments.dropFirst())))
    }

    /// Runs the command with `arguments` (without the executable's name) and returns its exit code.
    /// What it prints goes to `output` (standard output by default); errors and help for bad
    /// arguments go to standard error, as ArgumentParser writes them.
    public func run(_ arguments: [String], output: @escaping @Sendable (String) -> Void = { print($0) }) -> Int32 {
        CommandContext.lock.wait()
        defer { CommandContext.lock.signal() }
        CommandContext.install(CommandContext(command: self, output: output))
        do {
            var parsed = try RootCommand.parseAsRoot(arguments)
            try parsed.run()
            return 0
        } catch {
            let code = RootCommand.exitCode(for: error).rawValue
            let message = RootCommand.fullMessage(for: error)
            if !message.isEmpty {
                if code == 0 { output(message) } else { StandardError.write((message + "\n")) }
            }
            return code
        }
    }

    /// The help text of `subcommand` (nil: the top level), as `--help` prints it.
    public func help(_ subcommand: String? = nil) -> String {
        CommandContext.lock.wait()
        defer { CommandContext.lock.signal() }
        CommandContext.install(CommandContext(command: self, output: { _ in }))
        let type: ParsableCommand.Type = switch subcommand {
        case "serve": ServeCommand.self
        case "replay": ReplayCommand.self
        case "describe": DescribeCommand.self
        default: RootCommand.self
        }
        return RootCommand.helpMessage(for: type, columns: 100)
    }

    /// The app called `name`, if this command runs it.
    func app(named name: String) -> DaemonApp? { apps.first { $0.name == name } }

    /// "choose one of: a, b" for messages about an unknown app.
    var appChoices: String { "choose one of: \(apps.map(\.name).joined(separator: ", "))" }
}

/// The command being run: ArgumentParser builds commands from their types, so the apps and the
/// output sink are read from here. Set before every parse; `lock` makes runs in one process (tests)
/// take turns.
struct CommandContext: Sendable {
    let command: FlowdCommand
    let output: @Sendable (String) -> Void

    /// A semaphore, not NSLock: a static flowd links no full Foundation.
    static let lock = DispatchSemaphore(value: 1)

    nonisolated(unsafe) private static var installed: CommandContext?

    static func install(_ context: CommandContext) { installed = context }

    /// The command being run.
    static var current: CommandContext {
        guard let installed else { preconditionFailure("FlowdCommand.run installs its context before parsing") }
        return installed
    }
}

/// `NAME`: the daemon by default (`NAME serve`), or `replay`, `describe`.
struct RootCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        let name = CommandContext.current.command.name
        return CommandConfiguration(
            commandName: name,
            abstract: "The flowd daemon running \(name == "flowd" ? "a built-in app" : "this executable's apps"), the replay of flowctl recordings, and each app's screen contract.",
            discussion: """
                Without a subcommand \(name) runs the daemon (`\(name) serve`): every option of `\(name) serve` \
                works as `\(name) OPTIONS`. See `\(name) serve --help`, `\(name) replay --help` and `\(name) describe --help`.

                Examples:
                  \(name) --app \(CommandContext.current.command.apps[0].name)
                  \(name) --list-apps
                  \(name) describe \(CommandContext.current.command.apps[0].name)
                  \(name) replay bug.rec
                """,
            version: CommandContext.current.command.version,
            subcommands: [ServeCommand.self, ReplayCommand.self, DescribeCommand.self],
            defaultSubcommand: ServeCommand.self)
    }
}
