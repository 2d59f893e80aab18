import FlowApp
import FlowKit

/// `describe`'s renderings of app contracts: plain text for a person, Markdown for docs/demo.md
/// (generated, checked by a test), JSON for programs (`AppContract.json`).
enum ContractText {
    /// Each kind with its State and Output cases, schema and example on a line each.
    static func plain(_ contract: AppContract) -> String {
        var lines = ["app \(contract.app): \(contract.screens.count) screen kind\(contract.screens.count == 1 ? "" : "s") with a contract"]
        for screen in contract.screens {
            lines.append("")
            lines.append("kind \(screen.kind)")
            lines.append("  State     schema  \(screen.state.json.text)")
            if let example = screen.stateExample { lines.append("            example \(example.text)") }
            for output in screen.outputs {
                lines.append("  Output \(output.name)")
                lines.append("            schema  \(output.schema.json.text)")
                lines.append("            example \(output.example.text)")
            }
            if screen.stateContentType != "application/json" || screen.outputContentType != "application/json" {
                lines.append("  on the wire: State \(screen.stateContentType), Output \(screen.outputContentType) (JSON above is what people write)")
            }
            for note in screen.notes { lines.append("  note: \(note)") }
        }
        if !contract.undescribedKinds.isEmpty {
            lines.append("")
            lines.append("kinds without a module (no contract): \(contract.undescribedKinds.joined(separator: ", "))")
        }
        return lines.joined(separator: "\n")
    }

    /// The lines that name the flows an app runs at its start that do not handle links, after a blank
    /// line ("" when there are none).
    static func historyNote(flowsNotHandlingLinks flows: [String]) -> String {
        guard !flows.isEmpty else { return "" }
        return """


            flows that do not handle links: \(flows.joined(separator: ", "))
              while one runs, the journal keeps its whole history (no checkpoint can stand for it); \
            make each LinkHandling: route(_:) and place(toward:), and a memento for what its screens do not show \
            (docs/restore.md, "Long sessions")
            """
    }

    /// One table of apps and kinds, then one table per distinct contract (kinds that share their
    /// State and Output share it).
    static func markdown(_ contracts: [AppContract]) -> String {
        var lines = ["| app | kinds |", "|---|---|"]
        for contract in contracts {
            var kinds = contract.screens.map { "`\($0.kind)`" }
            kinds += contract.undescribedKinds.map { "`\($0)` (no contract)" }
            lines.append("| `\(contract.app)` | \(kinds.joined(separator: ", ")) |")
        }
        var groups: [(contract: ScreenContract, kinds: [String])] = []
        for screen in contracts.flatMap(\.screens) {
            var shape = screen
            shape.kind = ""
            if let index = groups.firstIndex(where: { $0.contract == shape }) {
                if !groups[index].kinds.contains(screen.kind) { groups[index].kinds.append(screen.kind) }
            } else {
                groups.append((shape, [screen.kind]))
            }
        }
        for group in groups {
            lines.append("")
            lines.append("Kinds \(group.kinds.sorted().map { "`\($0)`" }.joined(separator: ", ")):")
            lines.append("")
            lines.append("| | JSON Schema | example |")
            lines.append("|---|---|---|")
            lines.append("| State | \(cell(group.contract.state.json)) | \(group.contract.stateExample.map(cell) ?? "") |")
            for output in group.contract.outputs {
                lines.append("| Output `\(output.name)` | \(cell(output.schema.json)) | \(cell(output.example)) |")
            }
            if group.contract.stateContentType != "application/json" || group.contract.outputContentType != "application/json" {
                lines.append("| on the wire | State `\(group.contract.stateContentType)`, Output `\(group.contract.outputContentType)`; the JSON here is protobuf's JSON mapping | |")
            }
            for note in group.contract.notes { lines.append("| note | \(note) | |") }
        }
        return lines.joined(separator: "\n")
    }

    /// JSON as inline code in a table cell.
    private static func cell(_ value: JSONValue) -> String {
        "`" + value.text.replacing("|", with: "\\|") + "`"
    }
}
