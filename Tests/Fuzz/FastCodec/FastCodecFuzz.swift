import FlowWireFuzzing

/// libFuzzer's entry point: one input through `FastCodecFuzzTarget`; a violation traps so that libFuzzer keeps the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFastCodec(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    do {
        try FastCodecFuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    } catch {
        fatalError("FastCodec fuzz target: \(error)")
    }
    return 0
}
