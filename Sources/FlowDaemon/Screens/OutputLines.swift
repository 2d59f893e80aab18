/// Cuts what a spawned screen writes on one stream (its standard output or error) into lines the
/// daemon can log as the child's: each line bounded to `limit` bytes (a longer one is cut, the rest
/// of it left out, and the line says so), a last line without a newline given at `finish`, and every
/// character that could end, rewrite or restyle a log line escaped (`escaped`), so the text never
/// passes for a line of the daemon's own. A value: bytes in, lines out, tested without a process.
struct OutputLines {
    /// One line of the child's output, ready for the log.
    struct Line: Equatable {
        /// The line's text, escaped (no newline, carriage return, escape or other control character).
        var text: String
        /// The line was longer than the limit: `text` holds its first `limit` bytes.
        var cut: Bool = false
        /// The output ended (the child exited) before the line's newline.
        var unterminated: Bool = false
    }

    /// The longest line logged, in bytes of the child's output.
    let limit: Int
    private var pending: [UInt8] = []
    /// The rest of a line that was cut is being skipped, up to its newline.
    private var skipping = false

    /// A stream whose lines are bounded to `limit` bytes.
    init(limit: Int = 1_024) {
        precondition(limit > 0)
        self.limit = limit
        pending.reserveCapacity(limit)
    }

    /// Takes bytes the child wrote; returns the lines they complete.
    mutating func append(_ bytes: UnsafeRawBufferPointer) -> [Line] {
        var lines: [Line] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if skipping {
                    skipping = false
                } else {
                    lines.append(line(cut: false, unterminated: false))
                }
                pending.removeAll(keepingCapacity: true)
            } else if !skipping {
                pending.append(byte)
                if pending.count > limit {
                    lines.append(line(cut: true, unterminated: false))
                    pending.removeAll(keepingCapacity: true)
                    skipping = true
                }
            }
        }
        return lines
    }

    /// The stream ended: the last line if it had no newline.
    mutating func finish() -> Line? {
        defer {
            pending.removeAll()
            skipping = false
        }
        guard !pending.isEmpty else { return nil }
        return line(cut: false, unterminated: true)
    }

    /// The pending bytes as a line: the first `limit` bytes when it is cut, ending at a character boundary.
    private func line(cut: Bool, unterminated: Bool) -> Line {
        var end = min(pending.count, limit)
        if cut {
            while end > 0, end < pending.count, pending[end] & 0xC0 == 0x80 { end -= 1 }
        } else if end > 0, pending[end - 1] == UInt8(ascii: "\r") {
            end -= 1  // a CRLF line ending is an ending, not a carriage return to show
        }
        return Line(text: Self.escaped(pending[..<end]), cut: cut, unterminated: unterminated)
    }

    /// `bytes` as text that cannot start a new log line or change how one looks: invalid UTF-8 becomes
    /// U+FFFD; the backslash and `\t`, `\r` are written as `\\`, `\t`, `\r`, ESC as `\e`, other C0 and C1
    /// controls and DEL as `\u{…}`, and so are the line and paragraph separators and the bidirectional
    /// overrides and isolates (which reorder what a terminal shows).
    static func escaped<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                escaped.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\t": escaped += "\\t"
            case "\r": escaped += "\\r"
            case "\u{1B}": escaped += "\\e"
            default: escaped += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return escaped
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x5C, 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
