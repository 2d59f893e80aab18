import DemoApps
import FlowControl
import FlowKit
import FlowKitWire
import FlowWire
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A moment of the history drawn by the screen page, read-only (the inspector's "Preview this moment's
/// screen"; docs/web.md, "The timeline"): a debug client asks flowd for moment N and tells the page to
/// place every screen it held, as a tab's host would, without serials, so the page acknowledges
/// nothing. It sends flowd nothing that changes the app, and the page's own messages are ignored.
package final class PreviewSession: PageSession<PreviewSession.Ignored>, @unchecked Sendable {  // only `requests` is shared
    /// What the page may say: nothing is acted on.
    package struct Ignored: Sendable {}

    private let socketPath: String
    private let index: UInt64
    private let send: @Sendable (String) -> Void

    /// A preview of moment `index` of the daemon at `socketPath`, told to the page through `send`.
    package init(socketPath: String, moment index: UInt64, send: @escaping @Sendable (String) -> Void) {
        self.socketPath = socketPath
        self.index = index
        self.send = send
        super.init(threadName: "flowd-web preview") { _ throws(MessageError) in Ignored() }
    }

    override func serve() {
        do {
            let client = try FlowClient.connect(path: socketPath, role: .debug, name: "flowd-web preview")
            defer { client.close() }
            let moment = try client.moment(index)
            for message in Self.messages(moment, app: client.welcome.app) { send(message) }
        } catch {
            send(TabEvent.closed("cannot preview moment \(index): \(error)").json)
        }
        // Nothing more comes: wait for the page to leave.
        while true {
            for message in requests.drain() { if case .leave = message { return } }
            var descriptor = pollfd(fd: requests.descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, -1)
        }
    }

    /// What the page is told: the moment, then each of its screens placed where it was.
    static func messages(_ moment: Flowd_V1_Moment, app: String) -> [String] {
        var text = "moment \(moment.index) of \(moment.count)"
        if moment.hasInput { text += ", after \(moment.input.text)" }
        var messages = [Self.preview(app: app, index: moment.index, count: moment.count, text: text)]
        let types = TreeRenderer.flowTypes(moment.tree)
        for screen in moment.screens {
            guard screen.state.isJSON, let state = try? cardState(fromJSON: screen.state.data) else {
                messages.append(TabEvent.notice("screen \(screen.id) (\(screen.kind)) is not a card this page draws").json)
                continue
            }
            let view = ScreenView(id: screen.id, kind: screen.kind, flow: screen.flowID, flowType: types[screen.flowID] ?? "",
                                  state: state, placement: Placement(screen.placement))
            messages.append(TabEvent.place(view, serial: 0, animated: false).json)
        }
        return messages
    }

    /// A card's state from a moment's JSON, decoded as a host decodes it: through the card kinds' own
    /// coder (their JSON is protobuf's mapping, which leaves out empty lists, e.g. a card without buttons).
    private static func cardState(fromJSON json: Data) throws -> CardState {
        let coder = MenuScreen.stateCoder  // every card kind has this State and coder
        let codec = JSONPayloadCodec()
        return try coder.decode(coder.isJSON ? json : coder.payload(fromJSON: json, with: codec), with: codec)
    }

    private static func preview(app: String, index: UInt64, count: UInt64, text: String) -> String {
        let object: [String: Any] = ["type": "preview", "app": app, "moment": index, "count": count, "text": text]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
