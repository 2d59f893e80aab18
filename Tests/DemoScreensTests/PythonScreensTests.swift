import DemoApps
import Foundation
import Testing

@Suite("Python screens decision")
struct PythonScreensTests {
    let screensDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/screens").standardizedFileURL.path

    @Test func switchedOffFallsBackToSwift() {
        guard case .fallback(let reason) = PythonScreens.decide(environment: ["FLOWD_PYTHON_SCREENS": "0"], executable: nil) else {
            Issue.record("expected a fallback")
            return
        }
        #expect(reason.contains("hosting login, login-success in demo-screens"))
    }

    @Test func aMissingScriptFallsBackAndSaysWhatToSet() {
        guard case .fallback(let reason) = PythonScreens.decide(environment: ["FLOWD_DEMO_DIR": "/nonexistent"], executable: nil) else {
            Issue.record("expected a fallback")
            return
        }
        #expect(reason.contains("login_screen.py not found (set FLOWD_DEMO_DIR"))
    }

    @Test func findsTheScriptAboveTheExecutable() {
        let executable = screensDirectory + "/../../.build/x86_64-unknown-linux-gnu/debug/flowd"
        #expect(PythonScreens.directory(environment: [:], executable: executable) == screensDirectory)
        #expect(PythonScreens.directory(environment: ["FLOWD_DEMO_DIR": screensDirectory + "/."], executable: nil) == screensDirectory)
    }

    /// With python3 and protobuf (scripts/test installs it), login is spawned as `python3 <absolute script>`.
    /// Without them it is skipped, except on CI (`CI=true`), where scripts/test installed them.
    @Test func spawnsPythonWhenItCanRun() {
        if let problem = PythonScreens.check(script: screensDirectory + "/login_screen.py") {
            if ProcessInfo.processInfo.environment["CI"] == "true" { Issue.record("python3 cannot run the login screen on CI: \(problem)") }
            return
        }
        #expect(PythonScreens.decide(environment: ["FLOWD_DEMO_DIR": screensDirectory], executable: nil)
            == .spawn(.spawn(executable: "python3", arguments: [screensDirectory + "/login_screen.py"],
                             environment: .inherit(PythonScreens.inherited))))
    }
}
