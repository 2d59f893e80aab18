import FlowdTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The repository's root (for scripts/bench).
private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL.path

/// Runs `scripts/bench --debug --quick` (flowbench against the built debug flowd):
/// every benchmark must run and the one table must be printed. Counts only,
/// no timing assertions.
@Test(.timeLimit(.minutes(3)))
func quickRunPrintsTheWholeTable() throws {
    let flowbench = productsDirectory.appendingPathComponent("flowbench")
    let flowd = productsDirectory.appendingPathComponent("flowd")
    try #require(FileManager.default.isExecutableFile(atPath: flowbench.path), "flowbench is not built at \(flowbench.path); run swift build first")
    try #require(FileManager.default.isExecutableFile(atPath: flowd.path), "flowd is not built at \(flowd.path); run swift build first")

    // Output to files, not pipes: a child started by a parallel test could keep a pipe open.
    let directory = makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let outPath = directory + "/stdout", errPath = directory + "/stderr"
    _ = FileManager.default.createFile(atPath: outPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [repositoryRoot + "/scripts/bench", "--debug", "--quick"]
    process.standardOutput = FileHandle(forWritingAtPath: outPath)
    process.standardError = FileHandle(forWritingAtPath: errPath)
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""

    #expect(process.terminationStatus == 0, "scripts/bench --debug --quick failed:\n\(stderr)\n\(stdout)")
    let lines = stdout.split(separator: "\n").map(String.init)
    let header = try #require(lines.first { $0.hasPrefix("| benchmark") }, "no table header in:\n\(stdout)")
    for column in ["setting", "n", "p50", "p99", "p99.9", "rate", "server CPU/op", "memory", "note"] {
        #expect(header.contains(" \(column) "), "column \(column) missing from \(header)")
    }
    func rows(_ name: String) -> Int { lines.filter { $0.hasPrefix("| \(name) ") }.count }
    #expect(rows("baseline-pingpong") == 1)
    #expect(rows("baseline-relay") == 1)
    #expect(rows("flowd-ping") == 1)
    #expect(rows("baseline-echo") == 2)
    #expect(rows("flowd-ping-echo") == 2)
    #expect(rows("idle-connections") == 2)
    #expect(rows("startup") == 1)
    #expect(rows("flowd-relay") == 1)
    #expect(rows("flowd-echo") == 2)
    #expect(rows("live-screens") == 1)
    #expect(rows("tree-cost") == 6)
    #expect(rows("spawn-startup") == 1)
    #expect(rows("screen-restart") == 1)
    #expect(rows("hung-host") == 2)
    #expect(rows("flood") == 2, "the quiet hosts alone and during the flood")
    #expect(rows("restore") == 2, "a start without a journal and one on 1,000 journaled inputs")
}
