import CLibUV

/// Runs a callback once per loop iteration, right after I/O callbacks (`uv_check_t`).
/// The daemon flushes the writes it coalesced during the iteration here.
/// An active check keeps `run()` going; `unref()` it if it should not.
public final class UVCheck: UVHandle {
    private var callback: (() -> Void)?

    /// Creates a stopped check handle (`uv_check_init`).
    public init(loop: UVLoop) {
        super.init(loop: loop, type: UV_CHECK)
        uvMust(uv_check_init(loop.raw, check), "uv_check_init")
        didRegister()
    }

    private var check: UnsafeMutablePointer<uv_check_t> { rawHandle.assumingMemoryBound(to: uv_check_t.self) }

    /// Runs `callback` after the I/O phase of every iteration (`uv_check_start`). Replaces any previous callback.
    public func start(_ callback: @escaping () -> Void) {
        loop.assertOnLoop()
        precondition(!isClosing, "UVCheck.start on a closed handle")
        self.callback = callback
        uvMust(uv_check_start(check, { check in
            owner(of: check!, as: UVCheck.self).callback?()
        }), "uv_check_start")
    }

    /// Stops running the callback (`uv_check_stop`).
    public func stop() {
        loop.assertOnLoop()
        guard !isClosing else { return }
        uvMust(uv_check_stop(check), "uv_check_stop")
    }

    override func didClose() { callback = nil }
}
