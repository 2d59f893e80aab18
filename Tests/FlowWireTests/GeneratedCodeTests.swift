import Foundation
import Testing

/// True when `protoc` and the plugin built by scripts/generate-proto are both present, or on CI,
/// where scripts/test provides both and their absence must fail rather than skip.
private let canRegenerate =
    (PackageRoot.executableOnPath("protoc") != nil && FileManager.default.isExecutableFile(atPath: PackageRoot.protocGenSwift))
    || ProcessInfo.processInfo.environment["CI"] == "true"

@Suite struct GeneratedCodeTests {
    @Test(
        "Committed Sources/FlowWire/Generated matches proto/",
        .enabled(if: canRegenerate, "needs protoc on PATH and .build/debug/protoc-gen-swift (run scripts/generate-proto once)")
    )
    func committedGeneratedCodeMatchesProto() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [PackageRoot.path + "/scripts/generate-proto", "--check"]
        var environment = ProcessInfo.processInfo.environment
        // Use the existing plugin; never build it from inside a test.
        environment["PROTOC_GEN_SWIFT"] = PackageRoot.protocGenSwift
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "scripts/generate-proto --check failed:\n\(text)")
    }
}
