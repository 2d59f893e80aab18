import DaemonFuzzing
import FlowWireFuzzing
import FlowdTestSupport
import Foundation
import Testing

/// The embedded daemon's fuzz target (docs/fuzzing.md) in the suite: every input kept in
/// `FuzzRegressions/EmbeddedDaemon/`, and a bounded number of seeded random programs — some with a
/// crash and restore every few steps — so a run of `scripts/fuzz EmbeddedDaemon` is not the only
/// thing that exercises it.
@Suite("Embedded daemon, fuzzed")
struct EmbeddedDaemonFuzzTests {
    static var regressions: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FuzzRegressions/EmbeddedDaemon")
    }

    /// Kept inputs that still find a known bug of the daemon, reported and not fixed yet (docs/fuzzing.md
    /// "Known issues"): they replay as known issues, and once the bug is fixed the test says so (the
    /// issue is no longer recorded), to remove the entry.
    static let knownIssues: [String: String] = [:]

    @Test func everyKeptInputStillPasses() throws {
        // A missing or empty folder fails: the kept inputs are what this test is for.
        let files = try FileManager.default.contentsOfDirectory(at: Self.regressions, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
        #expect(!files.isEmpty, "no kept inputs in \(Self.regressions.path)")
        for file in files {
            let bytes = try [UInt8](Data(contentsOf: file))
            if let known = Self.knownIssues[file.lastPathComponent] {
                try withKnownIssue("\(file.lastPathComponent): \(known)") {
                    _ = try bytes.withUnsafeBytes { try EmbeddedDaemonFuzzTarget.run($0) }
                } matching: { issue in
                    (issue.error as? FuzzViolation)?.knownIssue == known
                }
            } else {
                #expect(throws: Never.self, "\(file.lastPathComponent)") {
                    try bytes.withUnsafeBytes { try EmbeddedDaemonFuzzTarget.run($0) }
                }
            }
        }
    }

    @Test func seededRandomProgramsKeepTheInvariantsAndLeaveNothing() throws {
        var generator = SeededGenerator(seed: 11)
        for round in 0..<300 {
            let length = Int(generator.next() % 96)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            guard Self.run(bytes, round: round) != nil else { return }
        }
    }

    /// The simulation of crashes: random programs in which about one operation in six kills the daemon
    /// (between two loop iterations, or after it read an output and before its commit) and a new one
    /// restores from the journal; each restore must show the committed tree and re-place its screens.
    @Test func seededProgramsWithCrashesRestoreWhatWasCommitted() throws {
        var generator = SeededGenerator(seed: 29)
        var restores = 0
        for round in 0..<200 {
            let length = Int(generator.next() % 120)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            for i in bytes.indices.dropFirst() where generator.next() % 6 == 0 {
                bytes[i] = bytes[i] & 0xE0 | 28
            }
            guard let summary = Self.run(bytes, round: round) else { return }
            restores += summary.restores
        }
        #expect(restores > 500, "the programs restored the daemon \(restores) times")
    }

    /// Runs one program; records what did not hold (a known issue as known) and returns nil on a finding.
    static func run(_ bytes: [UInt8], round: Int) -> EmbeddedDaemonFuzzTarget.Summary? {
        do {
            return try bytes.withUnsafeBytes { try EmbeddedDaemonFuzzTarget.run($0) }
        } catch let violation as FuzzViolation where violation.knownIssue != nil {
            withKnownIssue("program \(round) ends in known issue \(violation.knownIssue ?? "")", isIntermittent: true) { throw violation }
            return EmbeddedDaemonFuzzTarget.Summary()
        } catch {
            Issue.record("program \(round) \(bytes): \(error)")
            return nil
        }
    }
}
