import FlowApp
import Foundation

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
            FileHandle.standardError.write(Data("flowd: notice: \(reason)\n".utf8))
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

    /// Nil if `python3 script --check` succeeds, else what is wrong.
    package static func check(script: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--check"]
        // A file, not a pipe: reading a pipe to its end can wait forever when
        // another child of this process inherited its write end.
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("flowd-python-check-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        guard FileManager.default.createFile(atPath: outputPath, contents: nil), let output = FileHandle(forWritingAtPath: outputPath) else {
            return "cannot create \(outputPath) for python3's output"
        }
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            try? output.close()
            return "cannot start python3: \(error)"
        }
        process.waitUntilExit()
        try? output.close()
        let text = ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0 else {
            return process.terminationStatus == 127 ? "python3 is not on PATH" : (text.isEmpty ? "python3 exited \(process.terminationStatus)" : text)
        }
        return nil
    }

    /// The running executable's resolved path.
    static func executablePath() -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }
}
