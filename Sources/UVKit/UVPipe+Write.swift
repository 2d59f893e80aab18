import CLibUV

/// The header of a queued write: the `uv_write_t`, followed in the same allocation by the bytes.
private let writeRequestHeaderSize = (MemoryLayout<uv_write_t>.stride + 15) & ~15

extension UVPipe {
    /// Sends `bytes`: as much as the kernel takes now (`uv_try_write`), the rest copied and queued (`uv_write`).
    /// Never blocks and never throws; a failure reaches `onWriteError` later. Dropped after `shutdown()`,
    /// `close()` or a write error.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        loop.assertOnLoop()
        guard !bytes.isEmpty, !isClosing, !writeFailed, !isShutDown else { return }
        var written = 0
        if pendingWriteRequests == 0 {
            var buffer = uv_buf_init(UnsafeMutablePointer(mutating: bytes.baseAddress!.assumingMemoryBound(to: CChar.self)),
                                     UInt32(bytes.count))
            let rc = uv_try_write(stream, &buffer, 1)
            if rc >= 0 {
                written = Int(rc)
                if written == bytes.count { return }
            }
            // EAGAIN: queue everything. Any other error: `uv_write` meets it again and reports it through the
            // write callback on a later iteration, so the caller never sees a callback from inside `write`.
        }
        enqueue(UnsafeRawBufferPointer(rebasing: bytes[written...]))
    }

    /// Sends `bytes`; see `write(_: UnsafeRawBufferPointer)`.
    public func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    private func enqueue(_ bytes: UnsafeRawBufferPointer) {
        let block = UnsafeMutableRawPointer.allocate(byteCount: writeRequestHeaderSize + bytes.count, alignment: 16)
        let data = block + writeRequestHeaderSize
        data.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        let request = block.bindMemory(to: uv_write_t.self, capacity: 1)
        var buffer = uv_buf_init(data.assumingMemoryBound(to: CChar.self), UInt32(bytes.count))
        let rc = uv_write(request, stream, &buffer, 1) { request, status in
            let stream = request!.pointee.handle!
            UnsafeMutableRawPointer(request!).deallocate()
            owner(of: stream, as: UVPipe.self).writeCompleted(status)
        }
        if rc < 0 {
            // Only reachable for a stream libuv considers not writable; report like any write failure.
            block.deallocate()
            writeCompleted(rc, counted: false)
            return
        }
        pendingWriteRequests += 1
    }

    private func writeCompleted(_ status: Int32, counted: Bool = true) {
        if counted { pendingWriteRequests -= 1 }
        guard status < 0, status != UV_ECANCELED.rawValue, !writeFailed, !isClosing else { return }
        writeFailed = true
        let report = onWriteError
        onWriteError = nil
        report?(UVError(status, function: "uv_write"))
    }
}
