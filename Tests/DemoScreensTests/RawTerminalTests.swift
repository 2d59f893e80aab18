@testable import DemoScreens
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The settings demo-screens puts back when it leaves raw mode (`RawTerminal.baseline`). The terminal
/// itself is checked in a real one by InteractiveDemoTests (tmux, `stty -a` after the demo).
@Suite("raw terminal")
struct RawTerminalTests {
    /// A terminal as a shell leaves it: echo, line editing, signal keys, CR/NL translation.
    static var sane: termios {
        var settings = termios()
        settings.c_lflag = tcflag_t(ECHO | ECHOE | ECHOK | ICANON | ISIG | IEXTEN)
        settings.c_iflag = tcflag_t(BRKINT | ICRNL | IXON)
        settings.c_oflag = tcflag_t(OPOST | ONLCR)
        return settings
    }

    @Test func settingsWithEchoOrLineEditingAreKeptAsFound() {
        var quiet = Self.sane
        quiet.c_lflag &= ~tcflag_t(ECHO)  // a person's `stty -echo` keeps line editing: theirs to keep
        #expect(RawTerminal.baseline(from: quiet).c_lflag == quiet.c_lflag)
        #expect(RawTerminal.baseline(from: Self.sane).c_iflag == Self.sane.c_iflag)
    }

    /// What a SIGKILLed full-screen program leaves (no echo, no line editing) is not the baseline:
    /// leaving puts echo, line editing and the rest back.
    @Test func settingsAKilledFullScreenProgramLeftAreMadeSane() {
        var raw = Self.sane
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | IXON)
        let baseline = RawTerminal.baseline(from: raw)
        #expect(baseline.c_lflag & Self.sane.c_lflag == Self.sane.c_lflag)
        #expect(baseline.c_iflag & Self.sane.c_iflag == Self.sane.c_iflag)
    }
}
