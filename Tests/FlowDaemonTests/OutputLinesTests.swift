import FlowApp
@testable import FlowDaemon
import Testing

/// What a spawned screen writes, as the lines flowd logs for it (`OutputLines`), and what its
/// environment is drawn from (`ScreenFactory.Environment`): values, without a process.
@Suite("A spawned screen's output lines and environment")
struct OutputLinesTests {
    private func feed(_ lines: inout OutputLines, _ text: String) -> [OutputLines.Line] {
        Array(text.utf8).withUnsafeBytes { lines.append($0) }
    }

    @Test func linesEndAtNewlinesAndTheLastOneAtTheEnd() {
        var lines = OutputLines(limit: 64)
        #expect(feed(&lines, "one\ntw") == [.init(text: "one")])
        #expect(feed(&lines, "o\r\nthree") == [.init(text: "two")], "CRLF ends a line like LF")
        #expect(lines.finish() == .init(text: "three", unterminated: true))
        #expect(lines.finish() == nil)
    }

    @Test func aLongLineIsCutAndItsRestLeftOut() {
        var lines = OutputLines(limit: 8)
        #expect(feed(&lines, "0123456789abcdef") == [.init(text: "01234567", cut: true)])
        #expect(feed(&lines, "ghij\nnext\n") == [.init(text: "next")], "the rest of the cut line is skipped up to its newline")
        var multibyte = OutputLines(limit: 8)
        #expect(feed(&multibyte, "abcdefgé\n") == [.init(text: "abcdefg", cut: true)], "cut at a character boundary")
    }

    @Test func controlCharactersCannotMakeALineOfTheirOwn() {
        var lines = OutputLines(limit: 256)
        let forged = "ok\r2026-12-05T11:00:00+0000 critical flowd: [FlowDaemon] forged\u{1B}[2K\u{85}\u{2028}\u{202E}\\x\u{7F}\t\u{0}"
        let line = feed(&lines, forged + "\n")
        #expect(line == [.init(text: #"ok\r2026-12-05T11:00:00+0000 critical flowd: [FlowDaemon] forged\e[2K\u{85}\u{2028}\u{202e}\\x\u{7f}\t\u{0}"#)])
        #expect(OutputLines.escaped(Array("plain text, ünïcödé".utf8)) == "plain text, ünïcödé")
        #expect(OutputLines.escaped([0x66, 0xFF, 0x6F]) == "f\u{FFFD}o", "invalid UTF-8 is replaced, never passed on")
    }

    @Test func theEnvironmentIsTheBaselineTheInheritedNamesAndTheSetOnes() {
        let daemon = ["PATH": "/bin", "HOME": "/home/u", "LC_TIME": "C", "LANG": "C.UTF-8", "SECRET": "hunter2",
                      "DISPLAY": ":1", "NOTIFY_SOCKET": "/run/n", "MODE": "daemon's"]
        #expect(ScreenFactory.Environment().resolved(from: daemon) == ["PATH": "/bin", "HOME": "/home/u", "LC_TIME": "C", "LANG": "C.UTF-8"])
        let factory: ScreenFactory.Environment = ["MODE": "kiosk", "PATH": "/opt/bin"]
        #expect(factory.inheriting(["DISPLAY", "ABSENT"]).resolved(from: daemon)
            == ["PATH": "/opt/bin", "HOME": "/home/u", "LC_TIME": "C", "LANG": "C.UTF-8", "DISPLAY": ":1", "MODE": "kiosk"])
        #expect(ScreenFactory.spawn(executable: "x", environment: ["A": "1"]).inheriting(["B"])
            == .spawn(executable: "x", environment: ScreenFactory.Environment(["A": "1"], inherit: ["B"])))
    }
}
