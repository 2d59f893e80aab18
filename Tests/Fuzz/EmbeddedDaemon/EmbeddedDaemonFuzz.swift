import DaemonFuzzing
import FlowWireFuzzing

/// The known issues already reported (libFuzzer runs one input at a time, on one thread).
nonisolated(unsafe) private var knownIssuesSeen: Set<String> = []

/// libFuzzer's entry point: one program through `EmbeddedDaemonFuzzTarget`; a violation traps so that
/// libFuzzer keeps the input. A known issue (docs/fuzzing.md) ends the execution instead, and is
/// reported once, so a long run goes on past it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEmbeddedDaemon(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    do {
        try EmbeddedDaemonFuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    } catch {
        guard let known = error.knownIssue else { fatalError("EmbeddedDaemon fuzz target: \(error)") }
        if knownIssuesSeen.insert(known).inserted {
            print("EmbeddedDaemon fuzz target: known issue \(known) (reported once; the executions that hit it end there): \(error)")
        }
    }
    return 0
}
