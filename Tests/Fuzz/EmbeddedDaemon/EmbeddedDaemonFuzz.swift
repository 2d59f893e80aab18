import DaemonFuzzing

/// libFuzzer's entry point: one program through `EmbeddedDaemonFuzzTarget`; a violation traps so that libFuzzer keeps the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEmbeddedDaemon(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    do {
        try EmbeddedDaemonFuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    } catch {
        fatalError("EmbeddedDaemon fuzz target: \(error)")
    }
    return 0
}
