import DemoApps
import ScreenKit

#if canImport(Glibc)
import Glibc
#endif

/// The interactive terminal mode: draws the visible card (`TerminalView`),
/// takes keys (`TerminalKeys`) and acts on the card, redrawing whenever a
/// screen is placed, updated, moved or dismissed.
///
/// The terminal is in raw mode while it runs and is restored on every way
/// out: `q`, Ctrl-C, end of input, SIGINT/SIGTERM/SIGHUP, the daemon's
/// `Shutdown`, or an error. On `q` the host says `Shutdown` to flowd and
/// returns `.stopped`; whoever started flowd stops it (scripts/demo sends it
/// SIGTERM). When another process hosts the visible screen (a spawned
/// screen), this host stops reading the terminal until one of its own
/// screens is visible again, so that process can take the keys.
public final class TerminalHost {
    /// Why the terminal could not be used.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong and what to do.
        public var description: String
    }

    let host: ScreenHost
    let deck: CardDeck
    let color: Bool
    let output: Int32
    private var view: TerminalView
    private var keys = TerminalKeys()
    private var terminal: RawTerminal?
    private var stdinInput: ScreenHost.InputID?
    private var visibleID: UInt64?
    private var needsRedraw = true
    private var quit = false
    /// What the footer says once the person did something (nil: `note` stays).
    private var laterNote: String?

    /// A terminal host for `deck` (registered on `host`); `color` unless NO_COLOR is set.
    /// `note` is the footer's line; `laterNote`, when given, replaces it at the person's first key, so
    /// that news of the start ("restored where you were") does not stay up for the whole session.
    public init(host: ScreenHost, deck: CardDeck, color: Bool, note: String = "", laterNote: String? = nil, output: Int32 = 1) {
        self.host = host
        self.deck = deck
        self.color = color
        self.output = output
        self.view = TerminalView(app: host.daemon.app)
        view.note = note
        self.laterNote = laterNote
    }

    /// Whether to use ANSI attributes: not when NO_COLOR is set and not empty (no-color.org), nor for TERM=dumb.
    public static func wantsColor(environment: [String: String]) -> Bool {
        (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// Serves and draws until the daemon ends the session or the person quits (`.stopped`).
    public func run() throws -> ExitReason {
        let terminal = try RawTerminal(descriptor: 0)
        self.terminal = terminal
        write("\u{1B}[?1049h\u{1B}[?25l")  // the alternate screen, no cursor
        defer {
            write("\u{1B}[?25h\u{1B}[?1049l")
            terminal.restore()
        }
        let previousChange = deck.onChange
        deck.onChange = { [unowned self] change in
            previousChange?(change)
            needsRedraw = true
        }
        let previousError = host.onError
        host.onError = { [unowned self] error in
            previousError?(error)
            view.status = "flowd: \(error.message)"
            needsRedraw = true
        }
        host.addInput(descriptor: terminal.signalDescriptor) { [unowned self] in
            for signal in terminal.pendingSignals() {
                if signal == SIGWINCH { needsRedraw = true } else { finish() }
            }
        }
        while true {
            if needsRedraw { redraw() }
            if let reason = try host.pollOnce(timeoutMilliseconds: -1) {
                if reason == .stopped { host.close() }
                return reason
            }
        }
    }

    private func finish() {
        quit = true
        host.stop()
    }

    /// Brings the view up to date with the deck, reads the terminal only while one of our screens is visible, draws.
    private func redraw() {
        needsRedraw = false
        let visible = deck.visible
        let screen = visible.map(TerminalView.Screen.init)
        if visible?.id != visibleID || screen?.state.field == nil { keys.cancelEditing() }  // editing belongs to one screen
        // A line half typed before this process (or this host) died: flowd kept it as the card's draft.
        if visible?.id != visibleID, screen?.state.field != nil, let draft = visible?.draft { keys.resumeEditing(draft) }
        visibleID = visible?.id
        view.screen = screen
        view.hostedElsewhere = visible == nil && !deck.cards.isEmpty
        view.otherWindows = deck.visibleInOtherWindows.map { "\($0.otherWindowDisplay ?? ""): \($0.state.title)" }
        view.editing = keys.editing
        view.editingReplaces = keys.replacesText
        if view.hostedElsewhere {
            if let input = stdinInput {
                host.removeInput(input)
                stdinInput = nil
            }
        } else if stdinInput == nil {
            stdinInput = host.addInput(descriptor: 0) { [unowned self] in readKeys() }
        }
        let size = RawTerminal.size(of: output)
        let lines = view.lines(width: size.columns, height: size.rows, color: color)
        write("\u{1B}[H\u{1B}[2J" + lines.joined(separator: "\r\n"))
    }

    private func readKeys() {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(0, &bytes, bytes.count)
        if count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN) {
            finish()  // end of input
            return
        }
        for byte in bytes.prefix(max(0, count)) where !quit {
            guard let command = keys.key(byte, screen: view.screen) else { continue }
            perform(command)
        }
        // What is being typed is saved with flowd, once per read: a crash of this process loses none of it.
        // Only the card the keys were read for: a Place handled in the same poll may have changed it.
        if !quit, let card = deck.visible, card.id == visibleID, keys.editing != card.draft {
            do { try card.saveDraft(keys.editing) } catch { view.status = "cannot save the line being typed: \(error)" }
        }
    }

    private func perform(_ command: TerminalKeys.Command) {
        needsRedraw = true
        view.status = ""
        if let laterNote {
            view.note = laterNote
            self.laterNote = nil
        }
        guard let card = deck.visible else {
            if command == .quit { finish() }
            return
        }
        do {
            switch command {
            case .press(let index):
                try card.sendOutput(.didPressButton(index: index))
            case .enterText(let text):
                try card.sendOutput(.didEnterText(text: text))
            case .back:
                try card.navigate(.back)
            case .nextTab:
                if let tab = card.tab { try card.navigate(.selectTab((tab.index + 1) % max(1, tab.count))) }
            case .closeModal:
                try card.navigate(.closeModal)
            case .quit:
                finish()
            case .redraw:
                break
            case .hint(let text):
                view.status = text
            }
        } catch {
            view.status = "could not send to flowd: \(error)"
        }
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(output, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
