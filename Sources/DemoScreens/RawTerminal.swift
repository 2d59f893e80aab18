#if canImport(Glibc)
import Glibc
#endif

/// A terminal in raw mode (termios: no echo, no line buffering, no signal
/// keys, no CR/NL translation on input) and the signals that must restore it.
/// `restore()` is idempotent; `TerminalHost` calls it on every way out, and
/// SIGINT, SIGTERM, SIGHUP (and SIGWINCH, to redraw) arrive as bytes on
/// `signalDescriptor` so the loop ends through the same path.
final class RawTerminal {
    /// The terminal's input descriptor (0).
    let descriptor: Int32
    /// The read end of the signal pipe: one byte (the signal number) per signal.
    let signalDescriptor: Int32
    private var saved = termios()
    private var isRaw = false
    private var previousActions: [(Int32, sigaction)] = []

    /// The signals that end the terminal session, plus SIGWINCH.
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGWINCH]

    /// Puts `descriptor` in raw mode and installs the signal handlers; throws if it is not a terminal.
    init(descriptor: Int32 = 0) throws(TerminalHost.Failure) {
        self.descriptor = descriptor
        guard isatty(descriptor) == 1, tcgetattr(descriptor, &saved) == 0 else {
            throw TerminalHost.Failure(description: "standard input is not a terminal; run demo-screens in a terminal, or give it --script FILE")
        }
        saved = Self.baseline(from: saved)
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw TerminalHost.Failure(description: "cannot create the signal pipe: \(String(cString: strerror(errno)))")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        signalDescriptor = fds[0]
        rawTerminalSignalWriter = fds[1]
        for signal in Self.signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                var byte = UInt8(truncatingIfNeeded: signal)
                _ = write(rawTerminalSignalWriter, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            var previous = sigaction()
            sigaction(signal, &action, &previous)
            previousActions.append((signal, previous))
        }
        var raw = saved
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        raw.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(descriptor, TCSAFLUSH, &raw) == 0 else {
            let reason = String(cString: strerror(errno))
            restore()
            throw TerminalHost.Failure(description: "cannot put the terminal in raw mode: \(reason)")
        }
        isRaw = true
    }

    deinit { restore() }

    /// The settings to restore on the way out: those found at the start, unless they are what a killed
    /// full-screen program leaves behind (neither echo nor line editing), which are not worth keeping:
    /// then those with echo, line editing, signal keys and CR/NL translation back on.
    static func baseline(from found: termios) -> termios {
        guard found.c_lflag & tcflag_t(ECHO | ICANON) == 0 else { return found }
        var sane = found
        sane.c_lflag |= tcflag_t(ECHO | ECHOE | ECHOK | ICANON | ISIG | IEXTEN)
        sane.c_iflag |= tcflag_t(BRKINT | ICRNL | IXON)
        sane.c_oflag |= tcflag_t(OPOST | ONLCR)
        return sane
    }

    /// Restores the terminal's settings and the previous signal handlers, once.
    func restore() {
        if isRaw {
            tcsetattr(descriptor, TCSAFLUSH, &saved)
            isRaw = false
        }
        for (signal, previous) in previousActions {
            var action = previous
            sigaction(signal, &action, nil)
        }
        previousActions = []
        if rawTerminalSignalWriter >= 0 {
            close(rawTerminalSignalWriter)
            rawTerminalSignalWriter = -1
            close(signalDescriptor)
        }
    }

    /// Reads the signals that arrived since the last call.
    func pendingSignals() -> [Int32] {
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = read(signalDescriptor, &bytes, bytes.count)
        return count > 0 ? bytes.prefix(count).map { Int32($0) } : []
    }

    /// The terminal's size in columns and rows (80x24 if unknown).
    static func size(of descriptor: Int32) -> (columns: Int, rows: Int) {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }
}

/// The signal pipe's write end, for the async-signal-safe handler (only `write` is called there).
nonisolated(unsafe) private var rawTerminalSignalWriter: Int32 = -1
