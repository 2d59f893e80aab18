import DemoApps
import Foundation
import Testing

/// The Python login screen's terminal keys (scripts/screens/login_screen.py) keep the rule of every
/// card host (docs/demo.md, "Screen contracts"): a press acts on what the field shows. Its editing is
/// a mode, as demo-screens' is: while a line is edited every key is text; Enter sends the line, Esc
/// puts the field back as flowd has it; a digit presses only then. Driven with a fake host in python3.
@Suite("Python login screen keys")
struct LoginScreenKeysTests {
    let screensDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/screens").standardizedFileURL.path

    /// Feeds `keys` to the login screen's key handling; returns the outputs it sent, one per line.
    func outputs(after keys: String) throws -> [String] {
        let driver = """
        import sys, types
        sys.argv = ["login_screen.py"]
        sys.path.insert(0, \(String(reflecting: screensDirectory)))
        import login_screen as ls
        sent = []
        placement = types.SimpleNamespace(visible=True, in_modal=False, can_go_back=False, path=[types.SimpleNamespace(index=0)])
        screen = types.SimpleNamespace(kind="login", placement=placement, saved_state=b"",
            state=ls.CardState(title="Log in", body="Log in to continue.", buttons=["Log in", "Cancel"], field="User name"),
            send=sent.append, save_state=lambda data: None)
        host = types.SimpleNamespace(register=lambda *a, **k: None, screens={7: screen})
        screens = ls.LoginScreens(host, [], None, True)
        for key in sys.stdin.buffer.read():
            screens.key(bytes([key]))
        for output in sent:
            event = output.WhichOneof("event")
            print("press %d" % output.did_press_button.index if event == "did_press_button" else "text " + output.did_enter_text.text)
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", driver]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice  // its log lines
        try process.run()
        input.fileHandleForWriting.write(Data(keys.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "the driver ran")
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func aButtonIsPressedOnlyWithNothingPending() throws {
        if let problem = PythonScreens.check(script: screensDirectory + "/login_screen.py") {
            if ProcessInfo.processInfo.environment["CI"] == "true" { Issue.record("python3 cannot run the login screen on CI: \(problem)") }
            return
        }
        // Typed: digits are text; Enter sends the line, then 1 presses Log in.
        #expect(try outputs(after: "ebob1\r1") == ["text bob1", "press 0"])
        // Esc: nothing pending, the press goes alone.
        #expect(try outputs(after: "ebob\u{1B}1") == ["press 0"])
    }
}
