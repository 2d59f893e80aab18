import FlowdTestSupport
import Foundation
import Testing

/// scripts/lib/compiler-warnings.py, the check behind scripts/test's "no warnings"
/// (docs/architecture.md), fed diagnostics files the toolchain's compilers write: one known warning
/// of the C compiler and one of the Swift compiler are listed, once each, and fail the check (exit 1);
/// a file without a warning passes (exit 0); a file it cannot read stops it (exit 2), never a pass.
@Suite("the compiler-warnings check")
struct CompilerWarningsCheckTests {
    static let script = repositoryRoot + "/scripts/lib/compiler-warnings.py"
    /// The toolchain's folder: `swift`'s, where libclang, clang and swiftc are.
    static let toolchain: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .map { "\($0)/swift" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        .map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().deletingLastPathComponent().path }
    static let tools = Precondition(
        toolchain.map { FileManager.default.isExecutableFile(atPath: $0 + "/clang") } == true && Tour.onPath("python3"),
        "needs python3, and swift on PATH with the toolchain's clang beside it")

    /// Runs the check on `files` (`--read`): its exit status and its stdout's lines.
    static func check(_ files: [String]) throws -> (status: Int32, lines: [String], stderr: String) {
        let run = try ProductRun.run(executable: URL(fileURLWithPath: "/usr/bin/env"), ["python3", script, "--read"] + files)
        return (run.status, run.stdout.split(separator: "\n").map(String.init), run.stderr)
    }

    @Test(.needs(tools))
    func oneKnownWarningOfEachCompilerIsListedAndFails() throws {
        try Self.tools.require()
        let toolchain = try #require(Self.toolchain)
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "#warning flowd-known-warning\nint f(void) { return 0; }\n".write(toFile: directory + "/known.c", atomically: true, encoding: .utf8)
        try "func f() { let unused = 1 }\n".write(toFile: directory + "/known.swift", atomically: true, encoding: .utf8)
        try "int g(void) { return 0; }\n".write(toFile: directory + "/clean.c", atomically: true, encoding: .utf8)
        for (source, diagnostics) in [("known.c", "c.dia"), ("clean.c", "clean.dia")] {
            let clang = try ProductRun.run(executable: URL(fileURLWithPath: toolchain + "/clang"),
                                           ["-fsyntax-only", "--serialize-diagnostics", directory + "/" + diagnostics, directory + "/" + source])
            try #require(clang.status == 0, "\(clang.stderr)")
        }
        let swiftc = try ProductRun.run(executable: URL(fileURLWithPath: toolchain + "/swiftc"), [
            "-typecheck", "-Xfrontend", "-serialize-diagnostics-path", "-Xfrontend", directory + "/swift.dia", directory + "/known.swift",
        ])
        try #require(swiftc.status == 0, "\(swiftc.stderr)")

        let c = try Self.check([directory + "/c.dia"])
        #expect(c.status == 1, "\(c.stderr)")
        #expect(c.lines == ["\(directory)/known.c:1:2: warning: flowd-known-warning"], "\(c.lines)")

        let swift = try Self.check([directory + "/swift.dia"])
        #expect(swift.status == 1, "\(swift.stderr)")
        #expect(swift.lines.count == 1 && swift.lines.first?.hasPrefix("\(directory)/known.swift:1:16: warning: initialization of immutable value 'unused' was never used") == true,
                "\(swift.lines)")

        // Both, and the same file twice: each warning once.
        let both = try Self.check([directory + "/c.dia", directory + "/swift.dia", directory + "/c.dia"])
        #expect(both.status == 1 && both.lines.count == 2, "\(both.lines)")

        let clean = try Self.check([directory + "/clean.dia"])
        #expect(clean.status == 0 && clean.lines.isEmpty, "\(clean.lines) \(clean.stderr)")

        try Data("not a diagnostics file".utf8).write(to: URL(fileURLWithPath: directory + "/bad.dia"))
        let bad = try Self.check([directory + "/bad.dia"])
        #expect(bad.status == 2 && bad.stderr.contains("compiler-warnings: cannot read \(directory)/bad.dia"), "\(bad.status) \(bad.stderr)")
    }
}
