import CLibUV

#if canImport(Glibc)
import Glibc
#endif

/// One libuv event loop (`uv_loop_t`, heap-allocated), plus the read buffer every pipe on it shares.
///
/// A loop and every handle on it belong to one thread: the thread that created the loop until `run*` is called,
/// then the thread that runs it. Other threads get in only through `LoopQueue`.
public final class UVLoop {
    /// Size of the loop-wide read buffer; one `read(2)` delivers at most this many bytes.
    public static let readBufferSize = 64 * 1024

    /// The libuv loop; valid until `close()`.
    let raw: UnsafeMutablePointer<uv_loop_t>
    /// Shared by all pipes' alloc callbacks: libuv calls alloc, read, read callback in sequence, one stream at a time.
    private let readBuffer: UnsafeMutableRawPointer
    private var thread: pthread_t
    private var isRunning = false
    private var isClosed = false

    /// Creates and initializes a loop (`uv_loop_init`) owned by the current thread.
    public init() throws(UVError) {
        let raw = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
        let rc = uv_loop_init(raw)
        guard rc == 0 else {
            raw.deallocate()
            throw UVError(rc, function: "uv_loop_init")
        }
        self.raw = raw
        readBuffer = .allocate(byteCount: Self.readBufferSize, alignment: 16)
        // The alloc callback reads the buffer straight from `loop->data`: no ARC traffic per read.
        raw.pointee.data = readBuffer
        thread = pthread_self()
    }

    deinit {
        // Handles retain the loop until their close callback ran, so by now none should be left.
        if !isClosed {
            guard uv_loop_close(raw) == 0 else { return }  // leak rather than free memory libuv still uses
        }
        raw.deallocate()
        readBuffer.deallocate()
    }

    /// Runs until there are no active, referenced handles or `stop()` is called (`uv_run(UV_RUN_DEFAULT)`).
    /// Returns `true` if active handles remain (the loop was stopped).
    @discardableResult
    public func run() -> Bool { run(UV_RUN_DEFAULT) }

    /// Polls for I/O once, blocking if there is nothing pending (`uv_run(UV_RUN_ONCE)`).
    @discardableResult
    public func runOnce() -> Bool { run(UV_RUN_ONCE) }

    /// Polls for I/O once without blocking (`uv_run(UV_RUN_NOWAIT)`).
    @discardableResult
    public func runNoWait() -> Bool { run(UV_RUN_NOWAIT) }

    private func run(_ mode: uv_run_mode) -> Bool {
        precondition(!isClosed, "UVLoop.run called on a closed loop")
        precondition(!isRunning, "UVLoop.run called re-entrantly from a callback")
        thread = pthread_self()
        isRunning = true
        defer { isRunning = false }
        return uv_run(raw, mode) != 0
    }

    /// Makes `run()` return after the current iteration (`uv_stop`).
    public func stop() {
        assertOnLoop()
        uv_stop(raw)
    }

    /// Closes the loop (`uv_loop_close`) and frees it. Throws `.busy` if handles are still open: close them
    /// and run the loop until their close callbacks ran, then call again. Idempotent once it succeeded.
    public func close() throws(UVError) {
        assertOnLoop()
        precondition(!isRunning, "UVLoop.close called from a callback of the running loop")
        guard !isClosed else { return }
        try uvCheck(uv_loop_close(raw), "uv_loop_close")
        isClosed = true
    }

    /// The loop's cached time in milliseconds (`uv_now`), updated at the start of each iteration.
    public var now: UInt64 { uv_now(raw) }

    /// How long the next I/O poll will wait, in milliseconds: 0 when it will not block, nil when it
    /// waits for I/O alone (no timer armed) (`uv_backend_timeout`). Read it in a prepare callback.
    public var pollTimeout: UInt64? {
        let timeout = uv_backend_timeout(raw)
        return timeout < 0 ? nil : UInt64(timeout)
    }

    /// Refreshes the cached time (`uv_update_time`).
    public func updateTime() { uv_update_time(raw) }

    /// Stops the process unless called on the thread that owns this loop. Cheap: one `pthread_self()`.
    @inline(__always)
    public func assertOnLoop(file: StaticString = #fileID, line: UInt = #line) {
        precondition(pthread_equal(thread, pthread_self()) != 0,
                     "UVLoop touched from a thread that does not run it", file: file, line: line)
    }

    /// Whether the current thread owns this loop.
    public var isOnLoop: Bool { pthread_equal(thread, pthread_self()) != 0 }

    /// Number of handles known to the loop, including closing ones whose close callback has not run (`uv_walk`).
    /// Zero after every handle was closed and the loop ran: use it for leak checks and debug counters.
    public var openHandleCount: Int {
        assertOnLoop()
        var count = 0
        withUnsafeMutablePointer(to: &count) { counter in
            uv_walk(raw, { _, arg in arg!.assumingMemoryBound(to: Int.self).pointee += 1 }, counter)
        }
        return count
    }

    /// Whether active, referenced handles or requests would keep `run()` going (`uv_loop_alive`).
    public var isAlive: Bool { uv_loop_alive(raw) != 0 }
}

/// The alloc callback of every stream: hands out the loop's shared read buffer.
let sharedReadBufferAlloc: uv_alloc_cb = { handle, _, buf in
    let base = handle!.pointee.loop.pointee.data!.assumingMemoryBound(to: CChar.self)
    buf!.pointee = uv_buf_init(base, UInt32(UVLoop.readBufferSize))
}
