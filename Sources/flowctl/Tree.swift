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

/// `flowctl tree`: the flows and the navigation hierarchy, for people or machines.
struct Tree: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the running daemon's flows, navigation hierarchy and connections.",
        discussion: """
            Flows are listed with the screens they own; the navigation hierarchy shows stacks bottom \
            first ([index]), tab bars with the selected tab (*), modals under "presents", and for each \
            screen its kind, owning flow, host connection and process, visibility and any pending \
            acknowledgement. --json prints the flowd.v1.Tree message in the proto3 JSON mapping \
            (64-bit numbers are strings there).

            Examples:
              flowctl tree
              flowctl tree --json | jq '.window'
            """)

    @OptionGroup var connection: ConnectionOptions

    @Flag(name: .long, help: "Print the Tree message as one JSON object.")
    var json = false

    func run() throws {
        let tree = connection.with { client throws(ClientError) in try client.tree(timeoutMilliseconds: connection.milliseconds) }
        if json {
            emitLine((try? tree.jsonString()) ?? "{}")
        } else {
            emitText(TreeRenderer.render(tree))
        }
    }
}

/// `flowctl audit`: the injections and terminations debug clients asked for, and who asked.
struct Audit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the audit log: the last injections and terminations, with who asked.",
        discussion: """
            The daemon keeps the last 256 (inject-output, inject-navigation, terminate-flow), those \
            its policy refused included, each with the connection and the identity of its peer as \
            the kernel told it (uid, gid, pid, executable, systemd unit, LSM label). --json prints \
            the entries (flowd.v1.AuditEntry) as a JSON array in the proto3 JSON mapping.

            Examples:
              flowctl audit
              flowctl audit --json | jq '.[] | select(.refused)'
            """)

    @OptionGroup var connection: ConnectionOptions

    @Flag(name: .long, help: "Print the entries as one JSON array.")
    var json = false

    func run() throws {
        let entries = connection.with { client throws(ClientError) in try client.audit(timeoutMilliseconds: connection.milliseconds) }
        if json {
            emitLine("[" + entries.map { (try? $0.jsonString()) ?? "{}" }.joined(separator: ",") + "]")
        } else {
            emitText(TreeRenderer.renderAudit(entries))
        }
    }
}

/// `flowctl dot`: the tree as Graphviz.
struct Dot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the current tree as a Graphviz digraph.",
        discussion: """
            Flows are rounded boxes (dotted edges to the screens they own), stacks are 3-D boxes with \
            numbered edges bottom first, tab bars mark the selected tab with *, modals are dashed \
            "presents" edges, visible screens are green.

            Examples:
              flowctl dot | dot -Tsvg > tree.svg
              flowctl dot --socket /tmp/f/flowd.sock > tree.dot
            """)

    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        let tree = connection.with { client throws(ClientError) in try client.tree(timeoutMilliseconds: connection.milliseconds) }
        emitText(DotRenderer.render(tree))
    }
}

/// `flowctl where`: where the user is, as a link.
struct Where: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print where the user is, as a link that `flowctl open` takes back there.",
        discussion: """
            The app's flows say it, from the root down to the one that owns the visible screen: the \
            inverse of opening a link (docs/flows.md, Links). With windows that flows opened on other \
            displays, each window has a line, `DISPLAY: LINK`, the link to its visible screen: the main \
            window's first (`main: `), then the others, oldest first; `-` stands for a window no link names. \
            `flowctl open` takes the whole output back. Exits 1 when no link names the place in any \
            window: no running root flow opens links, or the user is at the root's first screen and \
            the root gives it no segment.

            Examples:
              flowctl where
              flowctl open "$(flowctl where)"
            """)

    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        let tree = connection.with { client throws(ClientError) in try client.tree(timeoutMilliseconds: connection.milliseconds) }
        guard tree.hasPlace || tree.otherWindows.contains(where: \.hasPlace) else {
            fail("no link names where the user is in app \(tree.app): no running root flow opens links, or it is the root's first screen")
        }
        guard !tree.otherWindows.isEmpty else { return emitLine(tree.place) }
        let windows = tree.otherWindows.map { "\($0.display): \($0.hasPlace ? $0.place : "-")" }
        emitLine((["main: " + (tree.hasPlace ? tree.place : "-")] + windows).joined(separator: "\n"))
    }
}
