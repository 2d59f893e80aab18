import DemoApps

/// What the interactive terminal shows, as a value: the visible card (or
/// why there is none), the line being edited and a status line. `lines`
/// renders it without touching a terminal, so it is unit-tested.
public struct TerminalView: Sendable, Equatable {
    /// The visible screen as drawn.
    public struct Screen: Sendable, Equatable {
        /// The screen kind ("menu").
        public var kind: String
        /// What it shows.
        public var state: CardState
        /// Where it is: "modal › tab 1/2 › stack depth 2".
        public var breadcrumb: String
        /// True if `b` applies (the screen is above the root of a stack).
        public var canGoBack: Bool
        /// True if `t` applies (the screen is in a tab bar).
        public var tabCount: Int?
        /// The selected tab (0-based), if in a tab bar.
        public var tabIndex: Int?
        /// True if `c` applies (the screen is in a modal presentation).
        public var inModal: Bool

        /// A screen as the terminal draws it.
        public init(kind: String, state: CardState, breadcrumb: String = "window", canGoBack: Bool = false,
                    tabIndex: Int? = nil, tabCount: Int? = nil, inModal: Bool = false) {
            self.kind = kind
            self.state = state
            self.breadcrumb = breadcrumb
            self.canGoBack = canGoBack
            self.tabIndex = tabIndex
            self.tabCount = tabCount
            self.inModal = inModal
        }

        /// The card as drawn.
        public init(_ card: Card) {
            self.init(kind: card.kind, state: card.state, breadcrumb: card.breadcrumb, canGoBack: (card.stackDepth ?? 1) > 1,
                      tabIndex: card.tab?.index, tabCount: card.tab?.count, inModal: card.isInModal)
        }
    }

    /// The app flowd runs (from `Welcome`), for the header.
    public var app: String
    /// The visible screen, if this host holds it.
    public var screen: Screen?
    /// True when this host's screens are all hidden: another process (a
    /// spawned screen) shows the visible one.
    public var hostedElsewhere = false
    /// The text field's line while `e` editing is under way.
    public var editing: String?
    /// Whether `editing` is the field's text still selected: typing replaces it.
    public var editingReplaces = false
    /// The last notice (a refused navigation, an error), shown at the bottom.
    public var status = ""
    /// A line always shown under the keys (scripts/demo: how to attach flowctl).
    public var note = ""
    /// The windows flows opened on other displays, each "display: title" of its visible screen:
    /// the terminal draws the main window and names these in one line.
    public var otherWindows: [String] = []

    /// A view of `app` with nothing shown yet.
    public init(app: String, screen: Screen? = nil) {
        self.app = app
        self.screen = screen
    }

    /// The lines to draw, each at most `width` columns, at most `height`
    /// lines; with `color`, ANSI bold/dim/reverse (none without).
    public func lines(width: Int = 80, height: Int = 24, color: Bool = false) -> [String] {
        let style = Style(enabled: color)
        var content: [String] = []
        var header = "flowd demo · \(app)"
        if let screen { header += " · \(screen.kind)" }
        let place = screen?.breadcrumb ?? ""
        let gap = max(1, width - header.count - place.count)
        content.append(style.reverse(Self.clip(header + String(repeating: " ", count: gap) + place, width)))
        content.append("")
        if let screen {
            content.append("  " + style.bold(Self.clip(screen.state.title, width - 2)))
            if !screen.state.body.isEmpty {
                content.append("")
                content += Self.wrap(screen.state.body, width: width - 4).map { "  " + $0 }
            }
            if !screen.state.buttons.isEmpty {
                content.append("")
                for (index, label) in screen.state.buttons.enumerated() {
                    content.append(Self.clip("  [\(index + 1)] \(label)", width))
                }
            }
            if let field = screen.state.field {
                content.append("")
                if let editing {
                    content.append(Self.clip("  \(field): ", width - 1) + style.reverse(Self.clip(editing, width - field.count - 5)) + "_")
                } else {
                    content.append(Self.clip("  \(field): \(screen.state.text ?? "")", width))
                }
            }
        } else if hostedElsewhere {
            content.append("  " + style.bold("Another process shows this screen"))
            content.append("")
            content += Self.wrap("The visible screen is hosted by a spawned screen process (the Python login screen, for one); it draws itself here and takes the keys until it is gone.", width: width - 4).map { "  " + $0 }
        } else {
            content.append("  Waiting for flowd to place a screen...")
        }

        if !otherWindows.isEmpty {
            content.append("")
            content += Self.wrap("On other displays: " + otherWindows.joined(separator: " · "), width: width - 2).map { "  " + style.dim($0) }
        }
        var footer = [String(repeating: "─", count: width)]
        footer += Self.wrap(keyHelp, width: width).map { style.dim($0) }
        if !note.isEmpty { footer += Self.wrap(note, width: width).map { style.dim($0) } }
        if !status.isEmpty { footer += Self.wrap(status, width: width) }
        let room = max(0, height - footer.count)
        if content.count > room {
            content = Array(content.prefix(max(0, room - 1))) + ["  …"]
        }
        return content + footer
    }

    /// The keys that apply now, in one sentence.
    public var keyHelp: String {
        if editing != nil, let field = screen?.state.field {
            if editingReplaces { return "editing \(field): typing replaces it, Backspace edits it, Enter sends, Esc cancels" }
            return "editing \(field): type, Enter sends, Backspace erases, Ctrl-U clears, Esc cancels"
        }
        var keys: [String] = []
        if let screen {
            let count = screen.state.buttons.count
            if count == 1 { keys.append("1 press") } else if count > 1 { keys.append("1-\(min(count, 9)) press") }
            if screen.state.field != nil { keys.append("e edit") }
            if screen.canGoBack { keys.append("b back") }
            if screen.tabCount != nil { keys.append("t next tab") }
            if screen.inModal { keys.append("c close modal") }
        }
        keys.append("q quit")
        return "keys: " + keys.joined(separator: " · ")
    }

    /// `text` cut to `width` characters (a final "…" when cut).
    static func clip(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        guard text.count > width else { return text }
        return String(text.prefix(width - 1)) + "…"
    }

    /// `text` broken at spaces into lines of at most `width` characters.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                if line.isEmpty {
                    line = String(word)
                } else if line.count + 1 + word.count <= width {
                    line += " " + word
                } else {
                    lines.append(line)
                    line = String(word)
                }
                while line.count > width {
                    lines.append(String(line.prefix(width)))
                    line = String(line.dropFirst(width))
                }
            }
            lines.append(line)
        }
        return lines
    }

    /// ANSI attributes, or none.
    struct Style {
        var enabled: Bool
        func bold(_ text: String) -> String { enabled ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
        func dim(_ text: String) -> String { enabled ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
        func reverse(_ text: String) -> String { enabled ? "\u{1B}[7m\(text)\u{1B}[0m" : text }
    }
}
