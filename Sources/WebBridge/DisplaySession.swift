import Foundation

/// A display tab (`/?display=customer`, docs/web.md "Several windows"): the screen page bound to
/// one display, drawing the windows flows opened on it. It is no connection of flowd's: the tab
/// that hosts those screens posts them on the `DisplayBoard`, and what this tab's person does goes
/// back to that tab's host, which sends it to flowd as its own. The hosting tab acks the commands
/// (it lists the window), so flowd never waits on a display nobody has open. While it is open, the
/// hosting tabs provide its display to flowd.
package final class DisplaySession: Sendable {
    /// The display this tab shows (`window(on:)`'s id).
    package let display: String
    private let board: DisplayBoard
    private let send: @Sendable (String) -> Void
    private let width: Int
    private let height: Int

    /// A tab showing `display` on a monitor of `width` × `height` pixels (0: unknown), told through
    /// `send` what is on it.
    package init(display: String, board: DisplayBoard, width: Int = 0, height: Int = 0, send: @escaping @Sendable (String) -> Void) {
        self.display = display
        self.board = board
        self.width = width
        self.height = height
        self.send = send
    }

    /// Says which display the tab shows, then the screens already on it.
    package func start() {
        send(TabEvent.display(display).json)
        board.viewerJoined(ObjectIdentifier(self), display: display, width: width, height: height, send: send)
    }

    /// Takes one message from the page (as a screen page's); a malformed one throws. Acks are the
    /// hosting tab's and are dropped; a request for a screen that just left the display is dropped too.
    package func receive(_ text: String) throws(MessageError) {
        let request = try TabRequest.parse(text)
        switch request {
        case .ack: return
        case .open: throw MessageError("a display tab does not open links; open the place in the main tab")
        default: break
        }
        if !board.perform(request, display: display) {
            send(TabEvent.notice("that screen is no longer on the display \(display)").json)
        }
    }

    /// The tab has gone.
    package func pageLeft() {
        board.viewerLeft(ObjectIdentifier(self), display: display)
    }

    /// What is wrong with a display id given in an address (nil: nothing): 1 to 64 bytes, as flowd takes them.
    package static func problem(with display: String) -> String? {
        (1...64).contains(display.utf8.count) ? nil : "a display's id is 1 to 64 bytes (docs/protocol.md §24)"
    }
}
