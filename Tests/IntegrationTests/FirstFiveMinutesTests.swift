import FlowdTestSupport
import FlowWire
import Foundation
import Testing

/// The rough edges a new user met in the first five minutes (issue: new users and app authors),
/// each held here so that it does not come back.
@Suite("The first five minutes")
struct FirstFiveMinutesTests {
    /// Terminating the root flow ends the app: flowctl says so and exits 0, and flowd's log reads
    /// as an ending asked for, not a failure.
    @Test func terminatingTheRootFlowSaysItEndsTheApp() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["tutorial"])
        _ = try host.settle()
        let terminator = try FlowctlProcess(["terminate", "1", "--socket", daemon.socketPath])
        while let frame = try host.receive() { try host.ackAll([frame]) }
        #expect(terminator.waitForExit() == 0, "\(terminator.stdout) \(terminator.stderr)")
        #expect(terminator.stdout.contains("OnboardingFlow flow#1"), "\(terminator.stdout)")
        #expect(terminator.stdout.contains("the app's root flow: the app ended"), "\(terminator.stdout)")
        #expect(!terminator.stderr.contains("shutting down"), "\(terminator.stderr)")
        #expect(daemon.waitForExit() == 0)
        #expect(!daemon.logText.contains("warning"), "\(daemon.logText)")
    }

    /// Every script builds through `swift_build` (scripts/lib/setup.sh), whose flags do not follow the
    /// terminal: SwiftPM's -color-diagnostics otherwise recompiles everything when TERM or the TTY changes.
    @Test func scriptsBuildTheSameWayFromAnyTerminal() throws {
        let scripts = repositoryRoot + "/scripts"
        for name in try FileManager.default.contentsOfDirectory(atPath: scripts).sorted() {
            guard let text = try? String(contentsOfFile: scripts + "/" + name, encoding: .utf8), text.hasPrefix("#!") else { continue }
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                guard code.contains("swift build") else { continue }
                #expect(code.contains("--no-color-diagnostics") || code.contains("echo"),
                        "scripts/\(name):\(number + 1) runs swift build without swift_build: \(line)")
            }
        }
        let setup = try String(contentsOfFile: scripts + "/lib/setup.sh", encoding: .utf8)
        #expect(setup.contains("swift build --no-color-diagnostics -debug-info-format none \"$@\""))
    }

    /// Shell completions come from the tools themselves, through scripts/generate-cli-docs (the man pages too,
    /// which need a tool built once; the script's run is reported in the docs, not repeated here).
    @Test func completionsAreGeneratedForFlowdAndFlowctl() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try ProductRun.run(executable: URL(fileURLWithPath: repositoryRoot + "/scripts/generate-cli-docs"), [
            "--no-build", "--completions-only", "--out", directory,
            productsDirectory.appendingPathComponent("flowd").path, productsDirectory.appendingPathComponent("flowctl").path,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let bash = try String(contentsOfFile: directory + "/completions/bash/flowctl", encoding: .utf8)
        for command in ["tree", "watch", "select-tab", "terminate", "open"] { #expect(bash.contains(command), "\(command)") }
        let zsh = try String(contentsOfFile: directory + "/completions/zsh/_flowd", encoding: .utf8)
        #expect(zsh.contains("replay") && zsh.contains("--state"), "\(zsh.prefix(400))")
        #expect(FileManager.default.fileExists(atPath: directory + "/completions/fish/flowctl.fish"))
    }

    /// `--help` prints the whole comment block at the top of a script, not a fixed number of lines.
    @Test(arguments: ["demo", "kill-flowd", "install-service", "generate-proto", "generate-cli-docs", "try-custom-daemon", "generate-contracts", "profile-daemon", "relay-tail", "relay-cpu", "libflowd-screen"])
    func scriptHelpIsTheWholeHeader(script: String) throws {
        let path = repositoryRoot + "/scripts/" + script
        let header = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .dropFirst().prefix { $0.hasPrefix("#") }
            .map { line in line.hasPrefix("# ") ? String(line.dropFirst(2)) : String(line.dropFirst()) }
        let run = try ProductRun.run(executable: URL(fileURLWithPath: path), ["--help"])
        #expect(run.status == 0)
        #expect(run.stdout == header.joined(separator: "\n") + "\n", "\(run.stdout)")
    }
}
