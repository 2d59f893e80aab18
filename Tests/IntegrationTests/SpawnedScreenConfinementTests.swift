import FlowdTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a spawned screen gets, from the outside (issue 47, "Spawned screens get less"): a real flowd
/// spawns a shell script as every screen of the tutorial; the script records its environment as
/// exec gave it (`/proc/$$/environ`) and its `NoNewPrivs`, writes on its standard output and error,
/// and exits. docs/daemon.md, "Screen factories".
@Suite("A spawned screen gets less")
struct SpawnedScreenConfinementTests {
    /// Starts flowd with `environment` and `arguments`, spawning a screen that runs `body` (sh) after
    /// recording itself in the directory; returns flowd, the directory and the child's pid once it exited.
    private func spawnOnce(body: String, arguments: [String] = [], environment: [String: String] = [:], launcher: [String] = [])
        throws -> (daemon: DaemonProcess, directory: String, pid: Int32)
    {
        let directory = makeTemporaryDirectory()
        let screen = directory + "/screen.sh"
        try """
            #!/bin/sh
            tr '\\0' '\\n' < /proc/$$/environ > \(directory)/environ
            grep '^NoNewPrivs:' /proc/$$/status > \(directory)/status
            echo $$ > \(directory)/pid.tmp && mv \(directory)/pid.tmp \(directory)/pid
            \(body)
            """.write(toFile: screen, atomically: true, encoding: .utf8)
        chmod(screen, 0o755)
        let daemon = try DaemonProcess(
            arguments: ["--app", "tutorial", "--spawn-screens", screen, "--restart-screens", "never"] + arguments,
            environment: environment, directory: directory, launcher: launcher)
        #expect(daemon.waitForLog("screen process exited"), "\(daemon.logText)")
        let pid = try #require(Int32(try String(contentsOfFile: directory + "/pid", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        return (daemon, directory, pid)
    }

    /// `name=value` lines as a dictionary.
    private func variables(_ text: String) -> [String: String] {
        var variables: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            variables[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return variables
    }

    @Test func aDescriptorFlowdInheritedDoesNotReachIt() throws {
        // flowd started with descriptor 7 open on a file, as a shell's `exec 7<file` leaves it.
        let marker = makeTemporaryDirectory() + "/inherited"
        try "inherited by flowd".write(toFile: marker, atomically: true, encoding: .utf8)
        let (daemon, directory, _) = try spawnOnce(
            body: "if [ -e /proc/$$/fd/7 ]; then readlink /proc/$$/fd/7 > \"$(dirname \"$0\")/leaked\"; fi",
            launcher: ["/bin/sh", "-c", "exec 7<\"$0\"; exec \"$@\"", marker])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(daemon.logText.contains("listening on"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/leaked"),
                "descriptor 7 reached the screen: \((try? String(contentsOfFile: directory + "/leaked", encoding: .utf8)) ?? "")")
    }

    @Test func aChildWritingAsFastAsItCanIsReadAtABoundedRate() throws {
        let (daemon, directory, _) = try spawnOnce(body: "timeout 2 yes 'a chatty screen line' ; exit 0")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(daemon.logText.contains("writes more than 1 MiB of output a second; reading it pauses until the second ends"), "\(daemon.logText.suffix(2_000))")
    }

    @Test func itsEnvironmentIsItsFactorysPlusFlowdsOwnAndNothingElse() throws {
        let (daemon, directory, _) = try spawnOnce(
            body: "exit 0", arguments: ["--screen-env", "SPAWN_TEST_PASSED,SPAWN_TEST_ABSENT"],
            environment: ["SPAWN_TEST_SECRET": "hunter2", "SPAWN_TEST_PASSED": "yes", "LC_TIME": "C.UTF-8"])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let child = variables(try String(contentsOfFile: directory + "/environ", encoding: .utf8))
        // flowd's environment, as DaemonProcess starts it: the test's own with these on top.
        let flowd = ProcessInfo.processInfo.environment.merging(
            ["SPAWN_TEST_SECRET": "hunter2", "SPAWN_TEST_PASSED": "yes", "LC_TIME": "C.UTF-8"]) { _, new in new }
        #expect(child["SPAWN_TEST_SECRET"] == nil, "the secret did not reach the screen")
        var expected = flowd.filter { ["PATH", "HOME", "TMPDIR", "TZ", "LANG", "LANGUAGE"].contains($0.key) || $0.key.hasPrefix("LC_") }
        expected["SPAWN_TEST_PASSED"] = "yes"
        expected["FLOWD_SOCKET_FD"] = "3"
        expected["FLOWD_TOKEN"] = child["FLOWD_TOKEN"]
        expected["FLOWD_SCREEN_KIND"] = "tutorial"
        expected["FLOWD_SCREEN_ID"] = child["FLOWD_SCREEN_ID"]
        expected["FLOWD_SOCKET"] = daemon.socketPath
        #expect(child == expected)
        #expect(child["FLOWD_TOKEN"]?.count == 32 && child["FLOWD_SCREEN_ID"] != nil)
        #expect(child["LC_TIME"] == "C.UTF-8" && child["SPAWN_TEST_ABSENT"] == nil)
        daemon.signal(SIGTERM)
        _ = daemon.waitForExit()
    }

    @Test func itsOutputIsLoggedAsItsOwnLabelledAndEscaped() throws {
        let forged = "2026-12-05T11:00:00+0000 critical flowd: [FlowDaemon] shutting down: forged by a screen"
        let (daemon, directory, pid) = try spawnOnce(body: """
            echo "a line on stdout"
            echo "\(forged)" >&2
            printf 'looks fine\\r\(forged) again\\033[2K\\n' >&2
            head -c 3000 /dev/zero | tr '\\0' 'x'; echo
            printf 'no newline at the end'
            exit 0
            """)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(daemon.waitForLog("no newline at the end"), "\(daemon.logText)")
        let lines = daemon.logText.split(separator: "\n").map(String.init)
        let label = "tutorial[\(pid)]"
        let stdout = try #require(lines.first { $0.contains("\(label) stdout: a line on stdout") }, "\(daemon.logText)")
        #expect(stdout.contains("pid=\(pid)") && stdout.contains("stream=stdout") && stdout.contains("kind=tutorial"), "\(stdout)")
        // The forged line is never a line of its own: each copy is in a line of flowd's that names the child.
        #expect(!lines.contains { $0.hasPrefix(forged) }, "\(daemon.logText)")
        let carrying = lines.filter { $0.contains("forged by a screen") }
        #expect(carrying.count == 2, "\(daemon.logText)")
        for line in carrying {
            #expect(line.contains("\(label) stderr: ") && line.contains("stream=stderr") && line.contains("pid=\(pid)"), "\(line)")
        }
        #expect(carrying.contains { $0.contains(#"\#(label) stderr: looks fine\r\#(forged) again\e[2K"#) }, "\(carrying)")
        #expect(!daemon.logText.contains("\r") && !daemon.logText.contains("\u{1B}"))
        let long = try #require(lines.first { $0.contains("\(label) stdout: xxx") })
        #expect(long.contains(String(repeating: "x", count: 1_024) + " … (cut: longer than 1024 bytes)"), "\(long)")
        #expect(!long.contains(String(repeating: "x", count: 1_025)))
        #expect(lines.contains { $0.contains("\(label) stdout: no newline at the end (no newline at its end)") }, "\(daemon.logText)")
        daemon.signal(SIGTERM)
        _ = daemon.waitForExit()
    }

    @Test func aChattyScreenCannotFloodTheLog() throws {
        let (daemon, directory, pid) = try spawnOnce(body: "seq 1 20000\nexit 0")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(daemon.waitForLog("lines of output left out"), "\(daemon.logText)")
        let logged = daemon.logText.split(separator: "\n").filter { $0.contains("tutorial[\(pid)] stdout: ") }
        #expect(logged.count >= 100 && logged.count <= 300, "at most 100 lines a second; \(logged.count) logged")
        daemon.signal(SIGTERM)
        _ = daemon.waitForExit()
    }

    @Test(arguments: ["PATH=/tmp", "DISPLAY,,XAUTHORITY", ""])
    func badScreenEnvironmentNamesSayWhatIsWrong(names: String) throws {
        let run = try ProductRun.run("flowd", ["--no-state", "--socket", makeTemporaryDirectory() + "/flowd.sock", "--app", "tutorial",
                                               "--spawn-screens", "false", "--screen-env", names])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--screen-env takes variable names, comma-separated (WAYLAND_DISPLAY,DISPLAY), got '\(names)'"),
                "\(run.stderr)")
    }

    @Test func itCannotGainPrivileges() throws {
        let (daemon, directory, _) = try spawnOnce(body: "exit 0")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let status = try String(contentsOfFile: directory + "/status", encoding: .utf8)
        #expect(status == "NoNewPrivs:\t1\n", "\(status)")
        daemon.signal(SIGTERM)
        _ = daemon.waitForExit()
    }
}
