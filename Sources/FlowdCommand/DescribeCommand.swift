import ArgumentParser
import FlowApp
import FlowKit

/// `flowd describe [APP]`: each screen kind of an app with the JSON Schema and an example of its
/// State and of every Output case, for people writing screen hosts in any language.
struct DescribeCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        let name = CommandContext.current.command.name
        return CommandConfiguration(
            commandName: "describe",
            abstract: "List an app's screen kinds with the JSON Schema and an example of their State and every Output case.",
            discussion: """
                The contract a screen host must keep, derived from the app's screen modules (their types \
                and the examples they supply), so it is always the one the running code uses. A running \
                daemon answers the same (`flowctl describe`).

                Exit codes: 0, 64 bad arguments.

                Examples:
                  \(name) describe \(CommandContext.current.command.apps[0].name)
                  \(name) describe --json | jq '.screens[].kind'
                  \(name) describe --all --markdown

                The text ends with the flows the app runs at its start that do not handle links, if any: \
                while one runs its journal keeps every input (docs/restore.md, "Long sessions").
                """,
            version: CommandContext.current.command.version)
    }

    @Argument(help: ArgumentHelp("The app (default: the first of --list-apps).", valueName: "app"))
    var app: String?

    @Flag(name: .long, help: "Every app.")
    var all = false

    @Flag(name: .long, help: "JSON: {\"app\", \"screens\": [{\"kind\", \"state\": {\"schema\", \"example\"}, \"outputs\": [{\"name\", \"schema\", \"example\"}]}], \"undescribed_kinds\"}; one object per line with --all.")
    var json = false

    @Flag(name: .long, help: "Markdown tables (docs/demo.md's are generated this way).")
    var markdown = false

    func validate() throws {
        let command = CommandContext.current.command
        if let app, command.app(named: app) == nil {
            throw ValidationError("no app named '\(app)'; \(command.appChoices)")
        }
        if all, app != nil { throw ValidationError("give an app or --all, not both") }
        if json, markdown { throw ValidationError("--json and --markdown contradict each other; give one") }
    }

    func run() throws {
        let context = CommandContext.current
        let chosen = all ? context.command.apps : [context.command.app(named: app ?? context.command.apps[0].name)!]
        let contracts = chosen.map { AppContract($0.make()) }
        if markdown {
            context.output(ContractText.markdown(contracts))
        } else if json {
            for contract in contracts { context.output(contract.json.text) }
        } else {
            let apps = chosen.map { $0.make() }
            context.output(zip(contracts, apps).map { contract, app in
                ContractText.plain(contract) + ContractText.historyNote(flowsNotHandlingLinks: Self.flowsNotHandlingLinks(app))
            }.joined(separator: "\n\n"))
        }
    }

    /// The type names of the flows `app` runs at its start (on a scratch runtime: nothing is placed
    /// anywhere) that do not handle links.
    static func flowsNotHandlingLinks(_ app: FlowApp.App) -> [String] {
        let runtime = FlowRuntime()
        runtime.reportsFlowEvents = false
        app.start(runtime)
        var effects: [RuntimeEffect] = []
        runtime.settle(reusing: &effects) { _ in }
        return runtime.flowTypesNotHandlingLinks
    }
}
