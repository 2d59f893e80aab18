import DaemonFuzzing
import FlowdTestSupport
import Foundation
import Testing

/// The embedded daemon's fuzz target (docs/fuzzing.md) in the suite: every input kept in
/// `FuzzRegressions/EmbeddedDaemon/`, and a bounded number of seeded random programs, so a run of
/// `scripts/fuzz EmbeddedDaemon` is not the only thing that exercises it.
@Suite("Embedded daemon, fuzzed")
struct EmbeddedDaemonFuzzTests {
    static var regressions: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FuzzRegressions/EmbeddedDaemon")
    }

    @Test func everyKeptInputStillPasses() throws {
        let files = (try? FileManager.default.contentsOfDirectory(at: Self.regressions, includingPropertiesForKeys: nil)) ?? []
        for file in files where !file.lastPathComponent.hasPrefix(".") {
            let bytes = try [UInt8](Data(contentsOf: file))
            #expect(throws: Never.self, "\(file.lastPathComponent)") {
                try bytes.withUnsafeBytes { try EmbeddedDaemonFuzzTarget.run($0) }
            }
        }
    }

    @Test func seededRandomProgramsKeepTheInvariantsAndLeaveNothing() throws {
        var generator = SeededGenerator(seed: 11)
        for round in 0..<300 {
            let length = Int(generator.next() % 96)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            do {
                try bytes.withUnsafeBytes { try EmbeddedDaemonFuzzTarget.run($0) }
            } catch {
                Issue.record("program \(round) \(bytes): \(error)")
                return
            }
        }
    }
}
