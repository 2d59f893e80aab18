import ArgumentParser
import FlowControl
import FlowWire
import Foundation

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
