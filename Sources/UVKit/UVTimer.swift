import CLibUV

/// A timer on the loop (`uv_timer_t`).
public final class UVTimer: UVHandle {
    private var callback: (() -> Void)?

    /// Creates a stopped timer (`uv_timer_init`).
    public init(loop: UVLoop) {
        super.init(loop: loop, type: UV_TIMER)
        uvMust(uv_timer_init(loop.raw, timer), "uv_timer_init")
        didRegister()
    }

    private var timer: UnsafeMutablePointer<uv_timer_t> { rawHandle.assumingMemoryBound(to: uv_timer_t.self) }

    /// Starts (or restarts) the timer: `callback` runs after `ms` milliseconds, then every `repeat` ms if non-zero
    /// (`uv_timer_start`). Replaces any previous callback.
    public func start(after ms: UInt64, repeat: UInt64 = 0, _ callback: @escaping () -> Void) {
        loop.assertOnLoop()
        precondition(!isClosing, "UVTimer.start on a closed timer")
        self.callback = callback
        uvMust(uv_timer_start(timer, { timer in
            owner(of: timer!, as: UVTimer.self).callback?()
        }, ms, `repeat`), "uv_timer_start")
    }

    /// Stops the timer (`uv_timer_stop`); it can be started again.
    public func stop() {
        loop.assertOnLoop()
        guard !isClosing else { return }
        uvMust(uv_timer_stop(timer), "uv_timer_stop")
    }

    override func didClose() { callback = nil }
}
