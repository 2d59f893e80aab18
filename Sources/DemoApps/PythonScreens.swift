import FlowApp
import FlowKit
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The demo's screens written in Python (scripts/screens/login_screen.py:
/// `login` and `login-success`), and how the launcher finds and runs them.
///
/// The directory holding `login_screen.py` is `$FLOWD_DEMO_DIR` if set (the
/// absolute path of scripts/screens; scripts/demo sets it), else found by
/// walking up from the flowd executable to a `scripts/screens` directory
/// (a build under `.build/` of this repository). `FLOWD_PYTHON_SCREENS=0`
/// turns them off. When the script, `python3` or its `protobuf` package is
/// missing, the launcher hosts these kinds in the Swift demo-screens
/// instead and says so once on stderr.
public enum PythonScreens {
    /// The environment variable naming the directory of the Python screens.
    public static let directoryVariable = "FLOWD_DEMO_DIR"
    /// Set to 0 to host the Python screens' kinds in Swift.
    public static let switchVariable = "FLOWD_PYTHON_SCREENS"
    /// The script's file name.
    public static let scriptName = "login_screen.py"
    /// The kinds the script implements.
    public static let kinds = [LoginScreen.kind, LoginSuccessScreen.kind]

    /// How the launcher creates the Python kinds: a spawn factory, or why it falls back to attached hosts.
    public enum Decision: Sendable, Equatable {
        /// Spawn `python3 <absolute script path>`.
        case spawn(ScreenFactory)
        /// Host the kinds in Swift; the text says why, for the log.
        case fallback(String)
    }

    /// The decision for this process, made once (it runs `python3 login_screen.py --check`);
    /// a fallback is reported on stderr then.
    public static let decision: Decision = {
        let decision = decide(environment: ProcessInfo.processInfo.environment, executable: executablePath())
        if case .fallback(let reason) = decision {
            StandardError.write("flowd: notice: \(reason)\n")
        }
        return decision
    }()

    /// Decides for `environment`, with flowd at `executable` (pure apart from the python3 check).
    public static func decide(environment: [String: String], executable: String?) -> Decision {
        if environment[switchVariable] == "0" {
            return .fallback("\(switchVariable)=0: hosting \(kinds.joined(separator: ", ")) in demo-screens (Swift)")
        }
        guard let directory = directory(environment: environment, executable: executable) else {
            return .fallback("\(scriptName) not found (set \(directoryVariable) to the absolute path of scripts/screens); hosting \(kinds.joined(separator: ", ")) in demo-screens (Swift)")
        }
        let script = directory + "/" + scriptName
        if let problem = check(script: script) {
            return .fallback("cannot run the Python screens: \(problem); hosting \(kinds.joined(separator: ", ")) in demo-screens (Swift)")
        }
        return .spawn(.spawn(executable: "python3", arguments: [script], environment: .inherit(inherited)))
    }

    /// What the spawned script gets from flowd's environment besides the baseline: how it finds its
    /// modules (`PYTHONPATH`, as in the check), the terminal it draws on in the interactive demo, and the
    /// demo's settings (docs/demo.md).
    public static let inherited = ["PYTHONPATH", "TERM", "NO_COLOR", "FLOWD_DEMO_TTY", "FLOWD_DEMO_NOTE", "DEMO_SCREENS_SCRIPT"]

    /// The directory holding the script: `$FLOWD_DEMO_DIR`, else `scripts/screens` above `executable`.
    package static func directory(environment: [String: String], executable: String?) -> String? {
        let fileManager = FileManager.default
        if let given = environment[directoryVariable], !given.isEmpty {
            let absolute = URL(fileURLWithPath: given).standardizedFileURL.path
            return fileManager.fileExists(atPath: absolute + "/" + scriptName) ? absolute : nil
        }
        guard let executable else { return nil }
        var directory = URL(fileURLWithPath: executable).standardizedFileURL.deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("scripts/screens")
            if fileManager.fileExists(atPath: candidate.appendingPathComponent(scriptName).path) { return candidate.standardizedFileURL.path }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// Nil if `python3 script --check` succeeds, else what is wrong. Spawned with posix_spawn, not
    /// Foundation's `Process`: a static flowd links no full Foundation (docs/performance.md, "On a device").
    package static func check(script: String) -> String? {
        // A file, not a pipe: reading a pipe to its end can wait forever when
        // another child of this process inherited its write end.
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("flowd-python-check-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let arguments = ["/usr/bin/env", "python3", script, "--check"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0]!, &actions, nil, &argv, environ)
        guard spawned == 0 else { return "cannot start python3: \(String(cString: strerror(spawned)))" }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let text = (FileManager.default.contents(atPath: outputPath).map { String(decoding: $0, as: UTF8.self) } ?? "")
            .filter { !$0.isNewline }.trimmingSpaces
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited, code == 0 else {
            if exited, code == 127 { return "python3 is not on PATH" }
            return text.isEmpty ? (exited ? "python3 exited \(code)" : "python3 was killed by signal \(status & 0x7f)") : text
        }
        return nil
    }

    /// The running executable's resolved path.
    static func executablePath() -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }
}
