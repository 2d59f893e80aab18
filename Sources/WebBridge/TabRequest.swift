import FlowKit

/// What a screen page asks of its tab's host (docs/web.md, "Messages").
package enum TabRequest: Equatable, Sendable {
    /// Button `index` of a screen was pressed.
    case press(screen: UInt64, index: Int)
    /// A screen's text field now says `text`.
    case text(screen: UInt64, text: String)
    /// The user is typing `text` into a screen's field, not sent yet: saved with flowd as the
    /// screen's draft (empty: none), so a new tab gets it back.
    case draft(screen: UInt64, text: String)
    /// Back from a screen (the back button: immediate; a swipe: begin, then cancel or commit).
    case back(screen: UInt64, phase: NavigationPhase)
    /// Close the modal a screen is in.
    case closeModal(screen: UInt64, phase: NavigationPhase)
    /// Close the window a screen is in (a window a flow opened on a display).
    case closeWindow(screen: UInt64, phase: NavigationPhase)
    /// Select tab `index` of the tab bar a screen is in.
    case selectTab(screen: UInt64, index: Int)
    /// The page has drawn command `serial` of a screen.
    case ack(screen: UInt64, serial: UInt64)
    /// Open a place of the app by its link (the page was opened at `#link`: a bookmark, a reload).
    case open(link: String)

    /// The request a message makes, or what is wrong with it.
    static func parse(_ text: String) throws(MessageError) -> TabRequest {
        let message = try IncomingMessage.decode(text)
        guard ["press", "text", "draft", "back", "closeModal", "closeWindow", "selectTab", "ack", "open"].contains(message.type) else {
            throw MessageError(
                "unknown message type \"\(message.type)\"; a screen page sends press, text, draft, back, closeModal, closeWindow, selectTab, ack, open")
        }
        if message.type == "open" { return .open(link: try message.required(message.link, "link")) }
        let screen = try message.required(message.screen, "screen")
        switch message.type {
        case "press": return .press(screen: screen, index: try message.required(message.index, "index"))
        case "text": return .text(screen: screen, text: try message.required(message.text, "text"))
        case "draft": return .draft(screen: screen, text: try message.required(message.text, "text"))
        case "back": return .back(screen: screen, phase: try message.navigationPhase())
        case "closeModal": return .closeModal(screen: screen, phase: try message.navigationPhase())
        case "closeWindow": return .closeWindow(screen: screen, phase: try message.navigationPhase())
        case "selectTab": return .selectTab(screen: screen, index: try message.required(message.index, "index"))
        default: return .ack(screen: screen, serial: try message.required(message.serial, "serial"))
        }
    }
}
