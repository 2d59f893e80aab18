import FlowWireFuzzing

/// libFuzzer's entry point: one input through `FrameDecoderFuzzTarget`; a violation traps so that libFuzzer keeps the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrameDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    do {
        try FrameDecoderFuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    } catch {
        fatalError("FrameDecoder fuzz target: \(error)")
    }
    return 0
}
