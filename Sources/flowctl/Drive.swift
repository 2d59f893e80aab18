import ArgumentParser
import FlowControl
import FlowWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The screen a command names, or the visible one when it names none: the tour works from wherever
/// the user is, without reading ids from `flowctl tree` first.
func screenOrVisible(_ screen: UInt64?, connection: ConnectionOptions) -> UInt64 {
    if let screen { return screen }
    let tree = connection.with { client throws(ClientError) in try client.tree(timeoutMilliseconds: connection.milliseconds) }
    guard let visible = tree.visibleScreen else { fail("no screen is visible; name one (see flowctl tree)") }
    return visible.id
}

/// `flowctl inject [SCREEN] OUTPUT`: an output as if the screen's host sent it.
struct Inject: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send an output to the flow owning a screen, as if the screen had sent it.",
        // SCREEN is the optional one: the arguments are read as [SCREEN] OUTPUT, not SCREEN [OUTPUT].
        usage: "flowctl inject [<screen>] <output> [<options>]",
        discussion: """
            OUTPUT is the JSON of the screen module's Output (application/json). Without SCREEN, the \
            visible screen. The daemon logs the injection with flowctl's process id. Prints the daemon's \
            answer; exits 1 if it refused (unknown screen, screen being dismissed, output that does not \
            decode, a button the screen does not show).

            Examples:
              flowctl inject '{"didPressButton":{"index":1}}'     # the visible screen
              flowctl inject 7 '{"didEnterText":{"text":"ada"}}'
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The screen id (see flowctl tree); leave it out for the visible screen, then OUTPUT.",
                                 valueName: "screen"))
    var first: String

    @Argument(help: ArgumentHelp("The output as JSON text.", valueName: "output"))
    var second: String?

    /// The screen named, if any.
    var screen: UInt64? { second == nil ? nil : UInt64(first) }
    /// The output's JSON.
    var output: String { second ?? first }

    func validate() throws {
        if second != nil, UInt64(first) == nil {
            throw ValidationError("SCREEN must be a screen id (see flowctl tree), got '\(first)'; leave it out for the visible screen")
        }
        guard (try? UntypedJSON(parsing: Array(output.utf8), fragmentsAllowed: true)) != nil else {
            throw ValidationError("OUTPUT is not valid JSON: \(output); quote it for the shell, e.g. '{\"didPressButton\":{\"index\":0}}'")
        }
    }

    func run() throws {
        var inject = Flowd_V1_InjectOutput()
        inject.screenID = screenOrVisible(screen, connection: connection)
        inject.payload = .json(Data(output.utf8))
        let message = connection.with { client throws(ClientError) in try client.command(.injectOutput(inject), timeoutMilliseconds: connection.milliseconds) }
        emitLine(message)
    }
}

/// Sends user navigation for a screen and prints the answer.
/// Sends the navigation and prints the daemon's answer, or `saying` instead when given.
func injectNavigation(_ navigation: Flowd_V1_UserNavigation, connection: ConnectionOptions, saying: String? = nil) {
    var inject = Flowd_V1_InjectNavigation()
    inject.navigation = navigation
    let message = connection.with { client throws(ClientError) in try client.command(.injectNavigation(inject), timeoutMilliseconds: connection.milliseconds) }
    emitLine(saying ?? message)
}

/// `flowctl back SCREEN`: the user's back navigation.
struct Back: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pop a screen off its stack, as if the user went back from it.",
        discussion: """
            The screen must be visible and above the root of its stack; without SCREEN, the visible \
            screen. Its flow is told (a flow whose initial screen it was ends, dismissed by the user).

            Examples:
              flowctl back
              flowctl back 4
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The screen to go back from (the visible top of a stack); default: the visible screen.",
                                 valueName: "screen"))
    var screen: UInt64?

    func run() throws {
        var navigation = Flowd_V1_UserNavigation()
        navigation.screenID = screenOrVisible(screen, connection: connection)
        var back = Flowd_V1_Back()
        back.phase = .immediate
        navigation.back = back
        injectNavigation(navigation, connection: connection)
    }
}

/// `flowctl select-tab TABBAR N`: the user's tab selection.
struct SelectTab: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "select-tab",
        abstract: "Select a tab of a tab bar, as if the user tapped it.",
        discussion: """
            ID is the tab bar's node id as `flowctl tree` shows it ("tab bar 2"), or the id of any screen \
            inside the tab bar (the daemon's InjectNavigation names a screen; flowctl finds one in the \
            tab bar for you). TAB counts from 1, as `flowctl tree` and the demo's header count them (the \
            wire's SelectTab.index is TAB - 1). The tab bar must not be covered by a modal.

            Examples:
              flowctl select-tab 2 2        # tab bar 2, second tab
              flowctl select-tab 5 1        # the tab bar around screen 5, first tab
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("A tab bar id, or a screen inside the tab bar.", valueName: "id"))
    var id: UInt64

    @Argument(help: ArgumentHelp("The tab to select, from 1.", valueName: "tab"))
    var tab: UInt32

    func validate() throws {
        guard tab >= 1 else { throw ValidationError("tabs count from 1 (as `flowctl tree` shows them); got \(tab)") }
    }

    func run() throws {
        let tree = connection.with { client throws(ClientError) in try client.tree(timeoutMilliseconds: connection.milliseconds) }
        guard let node = tree.node(id) else {
            fail("no node \(id) in the navigation hierarchy; see `flowctl tree` for tab bar and screen ids")
        }
        let screen: UInt64
        let bar: Flowd_V1_NavNode
        switch node.kind {
        case .screen:
            guard let around = tree.tabBar(around: node.id) else { fail("screen \(id) is not in a tab bar") }
            (screen, bar) = (node.id, around)
        case .tabBar:
            guard let found = tree.screen(inTabBar: node) else { fail("tab bar \(id) has no screen to act from") }
            (screen, bar) = (found, node)
        default:
            fail("node \(id) is a \(node.kind == .stack ? "stack" : "window"), not a tab bar; pass a tab bar id or a screen inside one")
        }
        guard Int(tab) <= bar.children.count else {
            fail("tab bar \(bar.id) has \(bar.children.count) tabs (1 to \(bar.children.count)); there is no tab \(tab)")
        }
        var navigation = Flowd_V1_UserNavigation()
        navigation.screenID = screen
        var select = Flowd_V1_SelectTab()
        select.index = tab - 1
        navigation.selectTab = select
        // In the words the person typed: tabs from 1 (the daemon's answer says the wire's index).
        injectNavigation(navigation, connection: connection, saying: "tab \(tab) of tab bar \(bar.id) selected (from screen \(screen))")
    }
}

/// `flowctl close-modal SCREEN`: the user closes the modal around a screen.
struct CloseModal: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "close-modal",
        abstract: "Close the modal presentation that contains a screen, as if the user closed it.",
        discussion: """
            The screen must be visible and inside a modal; without SCREEN, the visible screen. Everything \
            in the modal is dismissed and the flows concerned are told (a flow whose initial screen was \
            in it ends, dismissed by the user).

            Examples:
              flowctl close-modal
              flowctl close-modal 6
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("A visible screen inside the modal; default: the visible screen.", valueName: "screen"))
    var screen: UInt64?

    func run() throws {
        var navigation = Flowd_V1_UserNavigation()
        navigation.screenID = screenOrVisible(screen, connection: connection)
        var close = Flowd_V1_CloseModal()
        close.phase = .immediate
        navigation.closeModal = close
        injectNavigation(navigation, connection: connection)
    }
}

/// `flowctl terminate FLOW`: terminate a flow and unwind its screens.
struct Terminate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Terminate a flow and its sub-flows, and unwind their screens.",
        discussion: """
            Sub-flows are terminated first (last started first), then the flow's screens are dismissed \
            top-most first; its parent is told the flow ended (terminated). Waits until every screen \
            acknowledged its dismissal (or timed out), then prints the daemon's answer. The daemon logs \
            the termination with flowctl's process id. Terminating the app's root flow (flow 1 in \
            `flowctl tree`) ends the app: the answer says so, and flowd then stops (unless it runs with \
            --stay-up). Without FLOW, the flow that shows the visible screen; when that is the root flow, \
            flowctl refuses rather than end the app: name it (flowctl terminate 1) to do that.

            Examples:
              flowctl terminate             # the flow showing the visible screen
              flowctl terminate 2 --animated
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The flow id (see flowctl tree); default: the flow that shows the visible screen.",
                                 valueName: "flow"))
    var named: UInt64?

    @Flag(name: .long, help: "Ask the screens to animate their dismissal.")
    var animated = false

    /// The flow named, or the one showing the visible screen (never the root by default).
    private func target() -> UInt64 {
        if let named { return named }
        let tree = connection.with { client throws(ClientError) in try client.tree(timeoutMilliseconds: connection.milliseconds) }
        guard let visible = tree.visibleScreen else { fail("no screen is visible; name the flow (see flowctl tree)") }
        let owner = visible.screen.flowID
        if tree.hasRootFlow, owner == tree.rootFlow.id {
            fail("""
                screen \(visible.id) belongs to the app's root flow (\(tree.rootFlow.type) \(owner)): terminating it ends the app; \
                say `flowctl terminate \(owner)` to do that
                """)
        }
        return owner
    }

    func run() throws {
        let flow = target()
        var terminate = Flowd_V1_TerminateFlow()
        terminate.flowID = flow
        terminate.animated = animated
        let message = connection.with { client throws(ClientError) -> String in
            do throws(ClientError) {
                return try client.command(.terminateFlow(terminate), timeoutMilliseconds: connection.milliseconds)
            } catch {
                // The flow was the app's root (or its end ended the app) and the answer did not get out first.
                guard case .shutdown(let shutdown) = error, shutdown.reason == .appFinished else { throw error }
                return "terminated flow#\(flow): the app ended and flowd is shutting down"
            }
        }
        emitLine(message)
    }
}

/// `flowctl open LINK`: open a place of the app by a deep link, through its flows.
struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open a place of the app by a deep link, through its flows (docs/flows.md, Links).",
        discussion: """
            The daemon walks the link through the running flows: each consumes its segments, shows its \
            screens and starts the sub-flow for the rest, as if the user had walked there, so back, close \
            and results work from the opened screen. Prints the flows started, reused and unwound and \
            the screen now visible, or the error: BAD_LINK (malformed), UNKNOWN_LINK (the segment no flow \
            understood), LINK_REFUSED (a flow declined, with its reason); nothing changes then.

            Takes what `flowctl where` prints back, windows included: a text of several lines opens \
            each line's link in order, the main window's first; `DISPLAY: ` before a link is dropped \
            and a line `-` (no link names that window) is skipped. It stops at the first error.

            Examples:
              flowctl open students/Bob/age
              flowctl open 'directory/events/Party'
              flowctl open "$(flowctl where)"
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The link: segments separated by /, percent-encoded where needed; or what `flowctl where` printed.",
                                 valueName: "link"))
    var link: String

    func validate() throws {
        guard !Self.links(in: link).isEmpty else { throw ValidationError("no link to open in '\(link)': every line is empty or '-'") }
    }

    /// The links in `text`: one per line, without a `DISPLAY: ` prefix (a link holds no space), without `-` and empty lines.
    static func links(in text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let trimmed = line.trimmingWhitespace
            let link = trimmed.ranges(of: ": ").last.map { String(trimmed[$0.upperBound...]) } ?? trimmed
            return link.isEmpty || link == "-" ? nil : link
        }
    }

    func run() throws {
        let links = Self.links(in: link)
        // LinkOpened.place is the main window's: said only for a single link (not `flowctl where`'s windows).
        let oneLink = !link.unicodeScalars.contains("\n")
        for link in links { open(link, saysPlace: oneLink) }
    }

    private func open(_ link: String, saysPlace: Bool) {
        let opened = connection.with { client throws(ClientError) in try client.openLink(link, timeoutMilliseconds: connection.milliseconds) }
        var lines = ["opened \(opened.link)"]
        if !opened.unwound.isEmpty { lines.append("  unwound flows \(opened.unwound.map(String.init).joined(separator: ", "))") }
        if !opened.reused.isEmpty { lines.append("  through running flows \(opened.reused.map(String.init).joined(separator: ", "))") }
        if !opened.started.isEmpty { lines.append("  started flows \(opened.started.map(String.init).joined(separator: ", "))") }
        lines.append(opened.visibleScreen == 0 ? "  no screen visible" : "  visible: screen \(opened.visibleScreen)")
        if saysPlace, opened.place != opened.link { lines.append("  the flows say the place is '\(opened.place)'") }
        emitLine(lines.joined(separator: "\n"))
    }
}
