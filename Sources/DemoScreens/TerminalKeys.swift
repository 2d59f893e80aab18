/// The interactive terminal's key handling as a state machine: bytes in,
/// commands out, no terminal needed (unit-tested).
///
/// Keys: a digit presses that button, `e` edits the text field (line input:
/// the field's text starts selected, so typing replaces it and Backspace
/// edits it; Enter sends, Ctrl-U clears, Esc cancels), `b` back, `t` next
/// tab, `c` close modal, `q` (or Ctrl-C, Ctrl-D) quits. Any other key, an
/// arrow or function key too, gets a hint that it does nothing here.
public struct TerminalKeys: Sendable, Equatable {
    /// What a key asks the host to do.
    public enum Command: Sendable, Equatable {
        /// Press button `index` (0-based).
        case press(Int)
        /// Send the edited text (`.didEnterText`).
        case enterText(String)
        /// Pop the visible screen.
        case back
        /// Select the tab after the selected one (wrapping around).
        case nextTab
        /// Close the modal presentation.
        case closeModal
        /// Leave: restore the terminal and exit.
        case quit
        /// Only redraw (editing changed, or a hint to show).
        case redraw
        /// Show a hint: the key does not apply to the visible screen.
        case hint(String)
    }

    /// The line being edited, nil when not editing.
    public private(set) var editing: String?
    /// Whether `editing` is still the field's text as it was, selected: the next character typed
    /// replaces it (as in a text field that selects all on focus); Backspace edits it instead.
    public private(set) var replacesText = false
    /// Bytes of an unfinished UTF-8 character typed while editing.
    private var pending: [UInt8] = []
    /// Where an escape sequence (an arrow, a function key) is, outside editing.
    private var escape = Escape.none

    private enum Escape: Sendable, Equatable { case none, started, sequence }

    /// What a key that does nothing here says.
    public static let noSuchKey = "that key does nothing here; the keys that do are on the keys line above"

    /// Not editing.
    public init() {}

    /// Handles one byte typed while `screen` is visible (nil: none of ours).
    public mutating func key(_ byte: UInt8, screen: TerminalView.Screen?) -> Command? {
        if editing != nil { return edit(byte) }
        switch escape {
        case .none:
            if byte == 27 {
                escape = .started
                return nil
            }
        case .started:
            escape = .none
            if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "O") {
                escape = .sequence
                return nil
            }
        case .sequence:
            // Parameters, then one final byte in 0x40...0x7E ends the sequence.
            guard (0x40...0x7E).contains(byte) else { return nil }
            escape = .none
            return .hint(Self.noSuchKey)
        }
        switch byte {
        case 3, 4, UInt8(ascii: "q"):
            return .quit
        case UInt8(ascii: "1")...UInt8(ascii: "9"):
            guard let screen else { return nil }
            let index = Int(byte - UInt8(ascii: "1"))
            guard screen.state.buttons.indices.contains(index) else {
                return .hint("\(screen.kind) has \(screen.state.buttons.count) button\(screen.state.buttons.count == 1 ? "" : "s"), no button \(index + 1)")
            }
            return .press(index)
        case UInt8(ascii: "e"):
            guard let screen else { return nil }
            guard screen.state.field != nil else { return .hint("\(screen.kind) has no text field to edit") }
            editing = screen.state.text ?? ""
            replacesText = !(editing ?? "").isEmpty
            return .redraw
        case UInt8(ascii: "b"):
            guard let screen else { return nil }
            return screen.canGoBack ? .back : .hint("back: \(screen.kind) is not above the root of a stack")
        case UInt8(ascii: "t"):
            guard let screen else { return nil }
            return screen.tabCount != nil ? .nextTab : .hint("next tab: \(screen.kind) is not in a tab bar")
        case UInt8(ascii: "c"):
            guard let screen else { return nil }
            return screen.inModal ? .closeModal : .hint("close modal: \(screen.kind) is not in a modal presentation")
        case 32..<127:
            return .hint("'\(Character(Unicode.Scalar(byte)))': \(Self.noSuchKey)")
        default:
            return nil
        }
    }

    /// Edits `text` again, where it was left (a draft flowd kept for the screen): typing goes on after it.
    public mutating func resumeEditing(_ text: String) {
        editing = text
        replacesText = false
    }

    /// Stops editing (the screen went away).
    public mutating func cancelEditing() {
        editing = nil
        replacesText = false
        pending = []
    }

    private mutating func edit(_ byte: UInt8) -> Command? {
        switch byte {
        case 13, 10:
            let text = editing ?? ""
            cancelEditing()
            return .enterText(text)
        case 27, 3:
            cancelEditing()
            return .redraw
        case 127, 8:
            replacesText = false
            if !(editing ?? "").isEmpty { editing?.removeLast() }
            return .redraw
        case 21:  // Ctrl-U
            replacesText = false
            editing = ""
            return .redraw
        case 0..<32:
            return nil
        default:
            pending.append(byte)
            let decoded = String(decoding: pending, as: UTF8.self)
            // Wait for the rest of a multi-byte character (a replacement char means incomplete).
            if decoded.unicodeScalars.contains("\u{FFFD}") && pending.count < 4 && byte >= 0x80 { return nil }
            if replacesText {
                editing = ""
                replacesText = false
            }
            editing? += decoded
            pending = []
            return .redraw
        }
    }
}
