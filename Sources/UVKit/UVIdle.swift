import CLibUV

/// Runs a callback once per loop iteration, before the I/O poll, and makes that poll return at once
/// while it is active (`uv_idle_t`). Unlike a zero-timeout timer, an idle handle started again from
/// its own callback runs in the next iteration, not again in the same one (libuv 1.44 runs a timer
/// re-armed for 0 ms in the same timer phase, before any I/O).
public final class UVIdle: UVHandle {
    private var callback: (() -> Void)?

    /// Creates a stopped idle handle (`uv_idle_init`).
    public init(loop: UVLoop) {
        super.init(loop: loop, type: UV_IDLE)
        uvMust(uv_idle_init(loop.raw, idle), "uv_idle_init")
        didRegister()
    }

    private var idle: UnsafeMutablePointer<uv_idle_t> { rawHandle.assumingMemoryBound(to: uv_idle_t.self) }

    /// Runs `callback` in the idle phase of every iteration until stopped (`uv_idle_start`). Replaces any
    /// previous callback.
    public func start(_ callback: @escaping () -> Void) {
        loop.assertOnLoop()
        precondition(!isClosing, "UVIdle.start on a closed handle")
        self.callback = callback
        uvMust(uv_idle_start(idle, { idle in
            owner(of: idle!, as: UVIdle.self).callback?()
        }), "uv_idle_start")
    }

    /// Stops running the callback (`uv_idle_stop`); it can be started again.
    public func stop() {
        loop.assertOnLoop()
        guard !isClosing else { return }
        uvMust(uv_idle_stop(idle), "uv_idle_stop")
    }

    override func didClose() { callback = nil }
}
