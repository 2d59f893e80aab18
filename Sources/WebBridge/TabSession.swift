import DemoApps
import DemoScreens
import FlowControl
import FlowKit
import FlowWire
import Foundation
import ScreenKit

/// One browser tab as a flowd screen host: a `ScreenHost` with the demo's card kinds (a
/// `CardDeck`) on a thread of its own, fed by the page's messages and telling the page what
/// the daemon placed. The page acks each command once drawn, so the daemon's acks mean
/// "the browser shows it" (docs/web.md).
///
/// The tab leaving (closed, reloaded) `disconnect()`s the host without `Shutdown`: flowd holds
/// its screens for the resume grace, and a reloaded tab that presents the resume token gets them
/// back. A tab that does not come back is a host that crashed.
package final class TabSession: PageSession<TabRequest>, @unchecked Sendable {  // only `requests` is shared across threads
    /// How the tab connects.
    package struct Options: Sendable {
        /// flowd's socket; nil for the default path.
        package var socketPath: String?
        /// The name in `Hello` (as `flowctl tree` shows it).
        package var name: String
        /// The kinds this tab provides (a subset of `TabSession.kinds`).
        package var kinds: [String]
        /// The resume token of the tab's previous page, if it had one.
        package var resumeToken: String
        /// The size of the monitor the tab is on, in pixels (0: unknown): the main display's.
        package var width: Int
        package var height: Int

        package init(
            socketPath: String?, name: String, kinds: [String] = TabSession.kinds, resumeToken: String = "", width: Int = 0, height: Int = 0
        ) {
            self.socketPath = socketPath
            self.name = name
            self.kinds = kinds
            self.resumeToken = resumeToken
            self.width = width
            self.height = height
        }
    }

    /// Every kind a tab can host: the demo's card kinds.
    package static var kinds: [String] { DemoScreens.kinds }

    private let options: Options
    private let send: @Sendable (String) -> Void
    private let board: DisplayBoard?

    /// A session that will tell the page through `send` (called on the session's thread), and
    /// `board`'s display tabs what it hosts in windows on other displays.
    package init(options: Options, board: DisplayBoard? = nil, send: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.board = board
        self.send = send
        super.init(threadName: "flowd-web tab", parse: TabRequest.parse)
    }

    // MARK: The session's thread

    override func serve() {
        let host: ScreenHost
        do {
            host = try connect()
        } catch {
            send(TabEvent.closed("cannot connect to flowd: \(error.message)").json)
            return
        }
        host.autoAck = false
        let deck = CardDeck()
        deck.register(on: host)
        // Where the user is goes to the address bar (docs/web.md, "The place in the address bar"):
        // asked of flowd whenever one of this tab's screens was placed, moved or dismissed.
        let place = PlaceQuery(socketPath: daemonSocket)
        // A screen in a window on another display goes to that display's tabs too (docs/web.md,
        // "Several windows"), and what their person does comes back here as this page's own.
        let me = ObjectIdentifier(self)
        board?.hostJoined(me) { [requests] request in
            requests.push(.page(request))
        } displaysChanged: { [requests] in
            requests.push(.changed)
        }
        defer { board?.hostLeft(me) }
        provideDisplays(host)
        deck.onChange = { [send, board] change in
            let event = Self.event(for: change)
            // The board first: once this page is told, a display tab opened after has the screen.
            if let display = change.card.otherWindowDisplay { board?.post(event, display: display, host: me) }
            send(event.json)
            if case .updated = change { return }
            if let link = place.changed() { send(TabEvent.location(link: link.isEmpty ? nil : link).json) }
        }
        host.onError = { [send] error in send(TabEvent.notice("flowd: \(error.message)").json) }
        host.onReconnect = { [send, unowned host] event in
            send(TabEvent.notice(event.description).json)
            if case .reconnected = event { send(Self.hello(host).json) }
        }
        var left = false
        host.addInput(descriptor: requests.descriptor) { [unowned host] in
            for request in self.requests.drain() {
                switch request {
                case .page(let request): self.perform(request, deck: deck, host: host)
                case .changed: self.provideDisplays(host)
                case .leave:
                    left = true
                    host.disconnect()
                }
            }
        }
        send(Self.hello(host).json)
        do {
            while true {
                guard let reason = try host.pollOnce(timeoutMilliseconds: -1) else { continue }
                if !left { send(TabEvent.closed("the session ended: \(reason)").json) }
                return
            }
        } catch {
            send(TabEvent.closed("the session failed: \(error.message)").json)
        }
    }

    /// A tab is a display (docs/web.md, "Several windows"): this one shows the main window, and each
    /// display tab open shows its display; the host provides them all, so a flow's window on a display
    /// no tab shows fails or waits, as the flow chose.
    private func provideDisplays(_ host: ScreenHost) {
        let main = Display(id: "main", name: "flowd-web tab", width: options.width, height: options.height)
        do {
            try host.provideDisplays([main] + (board?.displays ?? []).filter { $0.id != "main" })
        } catch {
            send(TabEvent.notice("could not tell flowd the displays: \(error.message)").json)
        }
    }

    /// Connects, resuming the previous page's screens when it left a token; a token the daemon
    /// refuses (it expired, or flowd restarted) means a fresh start.
    private func connect() throws(ScreenKitError) -> ScreenHost {
        let kinds = options.kinds
        if !options.resumeToken.isEmpty {
            do {
                return try ScreenHost.connect(
                    path: options.socketPath, name: options.name, provides: kinds, resumeToken: options.resumeToken)
            } catch where error.daemonCode == .resumeRefused {
                send(TabEvent.notice("flowd did not resume the previous page's screens (\(error.message)); starting fresh").json)
            }
        }
        return try ScreenHost.connect(path: options.socketPath, name: options.name, provides: kinds)
    }

    private static func hello(_ host: ScreenHost) -> TabEvent {
        .hello(
            app: host.daemon.app, server: host.daemon.server, connection: host.daemon.connectionID,
            resumeToken: host.resumeToken, resumed: host.daemon.resumed)
    }

    private func perform(_ request: TabRequest, deck: CardDeck, host: ScreenHost) {
        let screen: UInt64
        switch request {
        case .ack(let id, let serial):
            // Sent as is: a dismissed screen has left the deck, and the daemon waits for this ack.
            do { try host.ack(screenID: id, serial: serial) } catch { send(TabEvent.notice("could not ack: \(error.message)").json) }
            return
        case .open(let link):
            open(link)
            return
        case .press(let id, _), .text(let id, _), .draft(let id, _), .back(let id, _), .closeModal(let id, _), .closeWindow(let id, _),
            .selectTab(let id, _):
            screen = id
        }
        guard let card = deck.cards[screen] else { return }  // a late click on a screen that just went
        do {
            switch request {
            case .press(_, let index): try card.sendOutput(.didPressButton(index: index))
            case .text(_, let text): try card.sendOutput(.didEnterText(text: text))
            case .draft(_, let text): try card.saveDraft(text.isEmpty ? nil : text)
            case .back(_, let phase): try card.navigate(.back(phase))
            case .closeModal(_, let phase): try card.navigate(.closeModal(phase))
            case .closeWindow(_, let phase): try card.navigate(.closeWindow(phase))
            case .selectTab(_, let index): try card.navigate(.selectTab(index))
            case .ack, .open: break
            }
        } catch {
            send(TabEvent.notice("could not send to flowd: \(error)").json)
        }
    }

    /// flowd's socket, for the tab's debug requests (where the user is, a link to open).
    private var daemonSocket: String {
        options.socketPath ?? WireProtocol.defaultSocketPath(environment: ProcessInfo.processInfo.environment, uid: getuid())
    }

    /// Opens `link` through the app's flows (the page was opened at it); what it places reaches the
    /// tabs that host its screens; a link the flows refuse is said on the page, nothing changes.
    /// Off the session's thread: the link may wait for a dismissal this very tab has to acknowledge.
    private func open(_ link: String) {
        let (path, send) = (daemonSocket, send)
        DispatchQueue.global().async {
            do {
                let client = try FlowClient.connect(path: path, role: .debug, name: "flowd-web tab")
                defer { client.close() }
                let opened = try client.openLink(link)
                send(TabEvent.notice("opened \(opened.link)").json)
            } catch {
                send(TabEvent.notice("could not open \(link): \(error)").json)
            }
        }
    }

    /// The page's message for a change of the deck.
    static func event(for change: CardDeck.Change) -> TabEvent {
        switch change {
        case .placed(let card):
            return .place(ScreenView(card), serial: card.serial, animated: card.animated)
        case .updated(let card):
            return .update(ScreenView(card), serial: card.serial)
        case .moved(let card):
            return .move(ScreenView(card), serial: card.serial, change: card.lastChange?.rawValue ?? "moved")
        case .dismissed(let card):
            let dismissal = card.dismissal ?? Dismissal(reason: .unspecified, animated: false)
            switch dismissal.reason {
            case .resumed, .connectionLost, .ackTimeout:
                return .forget(screen: card.id, reason: "\(dismissal.reason)")
            default:
                return .dismiss(screen: card.id, serial: card.serial, animated: dismissal.animated, reason: "\(dismissal.reason)")
            }
        }
    }
}

extension ScreenView {
    init(_ card: Card) {
        self.init(
            id: card.id, kind: card.kind, flow: card.flowID, flowType: card.flowType, state: card.state,
            placement: card.placement, draft: card.draft)
    }
}

/// Where the user is, asked of flowd on a debug connection of its own (a tab's host connection may
/// not ask for the tree), told only when it changed.
final class PlaceQuery {
    private let socketPath: String
    private var client: FlowClient?
    private var last: String?

    init(socketPath: String) { self.socketPath = socketPath }

    deinit { client?.close() }

    /// The place's link if it changed since the last call ("" when no link names it); nil when it did
    /// not, or flowd could not be asked.
    func changed() -> String? {
        do {
            if client == nil {
                client = try FlowClient.connect(path: socketPath, role: .debug, name: "flowd-web place")
            }
            let tree = try client?.tree()
            let now = tree?.hasPlace == true ? tree?.place ?? "" : ""
            guard now != last else { return nil }
            last = now
            return now
        } catch {
            client?.close()
            client = nil
            return nil
        }
    }
}

extension CardDeck.Change {
    /// The card that changed.
    var card: Card {
        switch self {
        case .placed(let card), .updated(let card), .moved(let card), .dismissed(let card): card
        }
    }
}
