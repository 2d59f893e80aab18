import DemoApps
import DemoScreens
import Testing

@Suite("terminal rendering")
struct TerminalViewTests {
    let menu = TerminalView.Screen(
        kind: "menu", state: CardState(title: "flowd demos", body: "Choose a demo.", buttons: LauncherFlow.entries),
        breadcrumb: "stack depth 1")

    @Test func drawsTheMainWindowAndNamesTheWindowsOnOtherDisplays() {
        var view = TerminalView(app: "till", screen: .init(kind: "till", state: CardState(title: "Till", buttons: ["Scan apple"])))
        view.otherWindows = ["customer: Welcome", "rear: Map"]
        let lines = view.lines()
        #expect(lines.prefix(7) == [
            "flowd demo · till · till                                                  window",
            "",
            "  Till",
            "",
            "  [1] Scan apple",
            "",
            "  On other displays: customer: Welcome · rear: Map",
        ])
        #expect(!TerminalView(app: "till", screen: menu).lines().contains { $0.contains("On other displays") }, "one window: no line")
    }

    @Test func drawsTitleBodyNumberedButtonsBreadcrumbAndKeys() {
        let lines = TerminalView(app: "launcher", screen: menu).lines()
        #expect(lines == [
            "flowd demo · launcher · menu                                       stack depth 1",
            "",
            "  flowd demos",
            "",
            "  Choose a demo.",
            "",
            "  [1] Onboarding tutorial",
            "  [2] Personal profile (dismiss animated)",
            "  [3] Business profile (dismiss without animation)",
            "  [4] Personal profile (leave on the stack)",
            "  [5] Student editor",
            "  [6] Contacts and events",
            "  [7] Log in",
            "  [8] Quit",
            String(repeating: "─", count: 80),
            "keys: 1-8 press · q quit",
        ])
    }

    @Test func showsTheFieldTheEditedLineAndOnlyTheKeysThatApply() {
        let form = TerminalView.Screen(
            kind: "profile", state: CardState(title: "Personal profile", body: "Who are you?", buttons: ["Save"], field: "Name", text: "Ada"),
            breadcrumb: "modal › tab 2/2 › stack depth 2", canGoBack: true, tabIndex: 1, tabCount: 2, inModal: true)
        var view = TerminalView(app: "launcher", screen: form)
        var lines = view.lines()
        #expect(lines.first?.hasSuffix("modal › tab 2/2 › stack depth 2") == true)
        #expect(lines.contains("  Name: Ada"))
        #expect(lines.last == "keys: 1 press · e edit · b back · t next tab · c close modal · q quit")
        view.editing = "Gra"
        view.status = "flowd: back: not above the root"
        lines = view.lines()
        #expect(lines.contains("  Name: Gra_"))
        #expect(lines.suffix(2) == ["editing Name: type, Enter sends, Backspace erases, Ctrl-U clears, Esc cancels", "flowd: back: not above the root"])
    }

    @Test func fitsAnEightyByTwentyFourTerminalWithLongText() {
        var state = CardState(title: String(repeating: "T", count: 120), body: String(repeating: "word ", count: 200),
                              buttons: (1...9).map { "Button \($0) " + String(repeating: "x", count: 100) }, field: "F", text: "t")
        state.text = String(repeating: "y", count: 200)
        var view = TerminalView(app: "launcher", screen: .init(kind: "item", state: state))
        view.note = "watch from another terminal: flowctl watch --socket /tmp/flowd-0/flowd.sock"
        view.status = String(repeating: "s", count: 100)
        let lines = view.lines(width: 80, height: 24)
        #expect(lines.count <= 24)
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(lines.filter { $0.count > 80 })")
        #expect(lines.contains("  …"))
        #expect(lines.last?.hasPrefix("ssss") == true, "the status line survives the cut")
    }

    @Test func noColorMeansNoEscapeSequences() {
        let view = TerminalView(app: "launcher", screen: menu)
        #expect(!view.lines(color: false).joined().contains("\u{1B}"))
        #expect(view.lines(color: true).joined().contains("\u{1B}[1mflowd demos"))
        #expect(!TerminalHost.wantsColor(environment: ["NO_COLOR": "1", "TERM": "xterm"]))
        #expect(TerminalHost.wantsColor(environment: ["NO_COLOR": "", "TERM": "xterm"]))
        #expect(!TerminalHost.wantsColor(environment: ["TERM": "dumb"]))
    }

    @Test func saysWhenAnotherProcessShowsTheScreen() {
        var view = TerminalView(app: "launcher")
        #expect(view.lines().contains("  Waiting for flowd to place a screen..."))
        view.hostedElsewhere = true
        #expect(view.lines().contains("  Another process shows this screen"))
        #expect(view.keyHelp == "keys: q quit")
    }
}

@Suite("terminal keys")
struct TerminalKeysTests {
    let form = TerminalView.Screen(kind: "profile", state: CardState(title: "P", buttons: ["Save", "Cancel"], field: "Name", text: "Ada"),
                                   canGoBack: true)

    @Test func digitsPressButtonsAndNavigationKeysApplyOnlyWhereTheyCan() {
        var keys = TerminalKeys()
        #expect(keys.key(UInt8(ascii: "2"), screen: form) == .press(1))
        #expect(keys.key(UInt8(ascii: "3"), screen: form) == .hint("profile has 2 buttons, no button 3"))
        #expect(keys.key(UInt8(ascii: "b"), screen: form) == .back)
        #expect(keys.key(UInt8(ascii: "t"), screen: form) == .hint("next tab: profile is not in a tab bar"))
        #expect(keys.key(UInt8(ascii: "c"), screen: form) == .hint("close modal: profile is not in a modal presentation"))
        #expect(keys.key(UInt8(ascii: "x"), screen: form) == .hint("'x': that key does nothing here; the keys that do are on the keys line above"))
        // An arrow key (ESC [ A) is one key that does nothing, not three.
        #expect([27, 91, 65].map { keys.key($0, screen: form) } == [nil, nil, .hint(TerminalKeys.noSuchKey)])
        #expect(keys.key(UInt8(ascii: "b"), screen: form) == .back, "the sequence ended; keys work again")
        #expect(keys.key(UInt8(ascii: "1"), screen: nil) == nil)
        for quit in [UInt8(ascii: "q"), 3, 4] { #expect(keys.key(quit, screen: nil) == .quit) }
    }

    @Test func editingStartsFromTheFieldAndEnterSendsTheLine() {
        var keys = TerminalKeys()
        #expect(keys.key(UInt8(ascii: "e"), screen: form) == .redraw)
        #expect(keys.editing == "Ada")
        #expect(keys.replacesText, "the field's text starts selected")
        for byte in Array("Bea".utf8) { _ = keys.key(byte, screen: form) }
        #expect(keys.editing == "Bea", "typing replaced the selected text instead of appending to it")
        #expect(keys.key(27, screen: form) == .redraw)
        _ = keys.key(UInt8(ascii: "e"), screen: form)
        _ = keys.key(127, screen: form)
        #expect(keys.editing == "Ad" && !keys.replacesText, "Backspace edits the text instead")
        _ = keys.key(UInt8(ascii: "a"), screen: form)
        #expect(keys.editing == "Ada")
        _ = keys.key(21, screen: form)
        #expect(keys.editing == "", "Ctrl-U clears")
        #expect(keys.key(27, screen: form) == .redraw)
        _ = keys.key(UInt8(ascii: "e"), screen: form)
        for byte: UInt8 in [127, 127, 127] { _ = keys.key(byte, screen: form) }
        for byte in Array("Zoë q1".utf8) { _ = keys.key(byte, screen: form) }
        #expect(keys.editing == "Zoë q1", "q and digits are text while editing; UTF-8 is decoded")
        #expect(keys.key(13, screen: form) == .enterText("Zoë q1"))
        #expect(keys.editing == nil)
        _ = keys.key(UInt8(ascii: "e"), screen: form)
        #expect(keys.key(27, screen: form) == .redraw, "Esc cancels")
        #expect(keys.editing == nil)
        #expect(keys.key(UInt8(ascii: "e"), screen: .init(kind: "menu", state: CardState(title: "m", buttons: []))) == .hint("menu has no text field to edit"))
    }

    /// The rule of every card host (docs/demo.md, "Screen contracts"): a press acts on what the field
    /// shows. Here editing is a mode: while a line is edited every key is text and nothing is pressed;
    /// Enter sends the line, Esc puts the field back as flowd has it; only then does a digit press.
    @Test func aButtonIsPressedOnlyWithNothingPending() {
        var keys = TerminalKeys()
        _ = keys.key(UInt8(ascii: "e"), screen: form)
        let typed = Array("bob1".utf8).map { keys.key($0, screen: form) }
        #expect(typed == [.redraw, .redraw, .redraw, .redraw], "no key presses a button while a line is edited")
        #expect(keys.key(13, screen: form) == .enterText("bob1"), "Enter sends the line")
        #expect(keys.key(UInt8(ascii: "1"), screen: form) == .press(0))
        _ = keys.key(UInt8(ascii: "e"), screen: form)
        for byte in Array("bob".utf8) { _ = keys.key(byte, screen: form) }
        #expect(keys.key(27, screen: form) == .redraw)
        #expect(keys.editing == nil, "Esc leaves nothing pending")
        var view = TerminalView(app: "launcher", screen: form)
        view.editing = keys.editing
        #expect(view.lines().contains("  Name: Ada"), "the field shows what flowd has again")
        #expect(keys.key(UInt8(ascii: "1"), screen: form) == .press(0))
    }
}
