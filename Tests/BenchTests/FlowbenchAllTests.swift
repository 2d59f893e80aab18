import Foundation
import Testing

#if canImport(Glibc)
import Glibc
import FlowdTestSupport
#endif

/// The directory holding the built products: the test bundle is built next to flowbench and flowd.

/// Runs `flowbench all --quick` against the built flowd: every benchmark must run
/// and the one table must be printed. Counts only, no timing assertions.
@Test(.timeLimit(.minutes(3)))
func quickRunPrintsTheWholeTable() throws {
    let flowbench = productsDirectory.appendingPathComponent("flowbench")
    let flowd = productsDirectory.appendingPathComponent("flowd")
    try #require(FileManager.default.isExecutableFile(atPath: flowbench.path), "flowbench is not built at \(flowbench.path); run swift build first")
    try #require(FileManager.default.isExecutableFile(atPath: flowd.path), "flowd is not built at \(flowd.path); run swift build first")

    let process = Process()
    process.executableURL = flowbench
    process.arguments = ["all", "--quick", "--flowd", flowd.path]
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    // Read both pipes to the end before waiting, so a chatty child never blocks.
    let errorData = Locked(Data())
    let errorReader = Thread { errorData.set(errors.fileHandleForReading.readDataToEndOfFile()) }
    errorReader.start()
    let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    while !errorData.isSet { usleep(1000) }
    let stderr = String(decoding: errorData.value, as: UTF8.self)

    #expect(process.terminationStatus == 0, "flowbench all --quick failed:\n\(stderr)\n\(stdout)")
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
}

/// A value handed from the reader thread to the test.
private final class Locked<Value>: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var stored: Value
    private var wasSet = false

    init(_ value: Value) { stored = value }

    var value: Value { lock.withLock { stored } }
    var isSet: Bool { lock.withLock { wasSet } }

    func set(_ value: Value) {
        lock.withLock {
            stored = value
            wasSet = true
        }
    }
}
