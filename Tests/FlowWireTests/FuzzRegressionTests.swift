import FlowWire
import FlowWireFuzzing
import Foundation
import Testing

/// Every input in `FuzzRegressions/<Target>/` (a crash scripts/fuzz found, or a
/// seed) goes through the fuzz target's own checks, so a fixed bug stays fixed.
@Suite struct FuzzRegressionTests {
    /// The fuzz targets whose checks live in FlowWireFuzzing, by folder name (as in Tests/Fuzz).
    static let targets: [String: @Sendable (UnsafeRawBufferPointer) throws -> Void] = [
        "FrameDecoder": { try FrameDecoderFuzzTarget.run($0) },
        "FastCodec": { try FastCodecFuzzTarget.run($0) },
    ]

    static let directory = PackageRoot.path + "/Tests/FlowWireTests/FuzzRegressions"

    @Test func everyRegressionInputPassesItsTarget() throws {
        let files = FileManager.default
        for folder in try files.contentsOfDirectory(atPath: Self.directory).sorted() where !folder.hasPrefix(".") {
            guard let run = Self.targets[folder] else {
                Issue.record("FuzzRegressions/\(folder) names no fuzz target; known: \(Self.targets.keys.sorted())")
                continue
            }
            for name in try files.contentsOfDirectory(atPath: Self.directory + "/" + folder).sorted() where !name.hasPrefix(".") {
                let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.directory + "/" + folder + "/" + name)))
                do {
                    try bytes.withUnsafeBytes { try run($0) }
                } catch {
                    Issue.record("FuzzRegressions/\(folder)/\(name): \(error)")
                }
            }
        }
    }

    /// The checks hold for well-formed input: every sample body, one frame
    /// at a time and all of them in one stream, at every maximum frame size.
    @Test func sampleFramesPassBothTargets() throws {
        var stream: [UInt8] = []
        for (seq, body) in SampleEnvelopes.bodies.enumerated() {
            let envelope = Flowd_V1_Envelope(body, seq: UInt64(seq + 1), replyTo: UInt64(seq))
            let bytes: [UInt8] = try envelope.serializedBytes()
            try bytes.withUnsafeBytes { try FastCodecFuzzTarget.run($0) }
            try FrameEncoder.append(envelope, to: &stream)
        }
        for limit in 0..<FrameDecoderFuzzTarget.limits.count {
            for seed in [0, 1, 77, 200] as [UInt8] {
                let input = [UInt8(limit), seed] + stream
                try input.withUnsafeBytes { try FrameDecoderFuzzTarget.run($0) }
            }
        }
    }
}
