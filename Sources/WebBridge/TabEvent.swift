import Foundation

/// What a tab's host tells its page (docs/web.md, "Messages"). Commands with a `serial` are
/// acknowledged by the page once drawn (`{"type":"ack"}`); the daemon waits for that ack.
enum TabEvent: Equatable {
    /// Connected to flowd (also after a reconnection): keep `resumeToken` for a reload.
    case hello(app: String, server: String, connection: UInt64, resumeToken: String, resumed: Bool)
    /// A new screen; animate its appearance only when `animated`.
    case place(ScreenView, serial: UInt64, animated: Bool)
    /// New state for a screen.
    case update(ScreenView, serial: UInt64)
    /// A screen moved, was covered or uncovered (a push over it, a tab change).
    case move(ScreenView, serial: UInt64, change: String)
    /// A screen goes; animate only when `animated` (a user's own back or close never is).
    case dismiss(screen: UInt64, serial: UInt64, animated: Bool, reason: String)
    /// The host dropped a screen without a command to ack (a resume re-places it, an ack timeout).
    case forget(screen: UInt64, reason: String)
    /// Something for the person: a daemon error, a reconnection.
    case notice(String)
    /// The session is over (the daemon shut down, the connection could not be made).
    case closed(String)
    /// Where the user is, as a link (nil: no link names the place), for the address bar.
    case location(link: String?)
    /// The page is a display tab showing the windows on this display (docs/web.md, "Several windows").
    case display(String)

    /// The message's JSON text.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(Wire(self))) ?? Data(#"{"type":"notice","text":"cannot encode a message"}"#.utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The flat JSON shape of every event.
    private struct Wire: Encodable {
        var type: String
        var screen: ScreenView?
        var id: UInt64?
        var serial: UInt64?
        var animated: Bool?
        var change: String?
        var reason: String?
        var text: String?
        var app: String?
        var server: String?
        var connection: UInt64?
        var resumeToken: String?
        var resumed: Bool?
        var link: String?
        var display: String?

        init(_ event: TabEvent) {
            switch event {
            case .hello(let app, let server, let connection, let resumeToken, let resumed):
                type = "hello"
                self.app = app
                self.server = server
                self.connection = connection
                self.resumeToken = resumeToken
                self.resumed = resumed
            case .place(let view, let serial, let animated):
                type = "place"
                screen = view
                self.serial = serial
                self.animated = animated
            case .update(let view, let serial):
                type = "update"
                screen = view
                self.serial = serial
            case .move(let view, let serial, let change):
                type = "move"
                screen = view
                self.serial = serial
                self.change = change
            case .dismiss(let id, let serial, let animated, let reason):
                type = "dismiss"
                self.id = id
                self.serial = serial
                self.animated = animated
                self.reason = reason
            case .forget(let id, let reason):
                type = "forget"
                self.id = id
                self.reason = reason
            case .notice(let text):
                type = "notice"
                self.text = text
            case .location(let link):
                type = "where"
                self.link = link
            case .closed(let text):
                type = "closed"
                self.text = text
            case .display(let display):
                type = "display"
                self.display = display
            }
        }
    }
}
