import PayloadFuzzing

/// libFuzzer's entry point: one input through `CardPayloadFuzzTarget`; a violation traps so that libFuzzer keeps the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCardPayload(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    do {
        try CardPayloadFuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    } catch {
        fatalError("CardPayload fuzz target: \(error)")
    }
    return 0
}
