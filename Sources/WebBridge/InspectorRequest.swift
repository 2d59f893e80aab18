/// What the inspector page asks of the daemon (docs/web.md, "Messages").
package enum InspectorRequest: Equatable, Sendable {
    /// An output as if the screen had sent it (`flowctl inject`); `output` is JSON text.
    case inject(screen: UInt64, output: String)
    /// Back from a screen (`flowctl back`).
    case back(screen: UInt64)
    /// Close the modal a screen is in (`flowctl close`).
    case closeModal(screen: UInt64)
    /// Close the window a screen is in, a window a flow opened on a display.
    case closeWindow(screen: UInt64)
    /// Select a tab of a tab bar, named by its node id or a screen inside it (`flowctl select-tab`).
    case selectTab(node: UInt64, index: Int)
    /// Terminate a flow and its sub-flows (`flowctl terminate`).
    case terminate(flow: UInt64, animated: Bool)
    /// Start recording every event (`flowctl record`), or stop and offer the file.
    case recordStart
    case recordStop
    /// Send the tree again.
    case refresh
    /// The history's inputs from input `from` on (the timeline; docs/web.md, "The timeline").
    case history(from: Int)
    /// The app right after input `index` (0: the start), computed by the daemon in a scratch runtime.
    case moment(index: Int)
    /// Inputs `from` to `to` as a recording to download.
    case export(from: Int, to: Int)

    /// The request a message makes, or what is wrong with it.
    static func parse(_ text: String) throws(MessageError) -> InspectorRequest {
        let message = try IncomingMessage.decode(text)
        switch message.type {
        case "inject":
            return .inject(screen: try message.required(message.screen, "screen"), output: try message.required(message.output, "output").text)
        case "back": return .back(screen: try message.required(message.screen, "screen"))
        case "closeModal": return .closeModal(screen: try message.required(message.screen, "screen"))
        case "closeWindow": return .closeWindow(screen: try message.required(message.screen, "screen"))
        case "selectTab":
            let index = try message.required(message.index, "index")
            guard index >= 0 else { throw MessageError("malformed message: tab index \(index) is negative") }
            return .selectTab(node: try message.required(message.screen, "screen"), index: index)
        case "terminate": return .terminate(flow: try message.required(message.flow, "flow"), animated: message.animated ?? true)
        case "recordStart": return .recordStart
        case "recordStop": return .recordStop
        case "refresh": return .refresh
        case "history":
            let from = message.from ?? 1
            guard from >= 1 else { throw MessageError("malformed message: history from \(from); the first input is 1") }
            return .history(from: from)
        case "moment":
            let index = try message.required(message.index, "index")
            guard index >= 0 else { throw MessageError("malformed message: moment \(index) is negative") }
            return .moment(index: index)
        case "export":
            let from = try message.required(message.from, "from"), to = try message.required(message.to, "to")
            guard from >= 1, to >= from else { throw MessageError("malformed message: export from \(from) to \(to); give 1 <= from <= to") }
            return .export(from: from, to: to)
        default:
            throw MessageError(
                "unknown message type \"\(message.type)\"; the inspector sends inject, back, closeModal, closeWindow, selectTab, "
                    + "terminate, recordStart, recordStop, refresh, history, moment, export")
        }
    }
}
