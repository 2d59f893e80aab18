import CLibUV

/// Runs a callback once per loop iteration, right before the I/O poll (`uv_prepare_t`). With
/// `UVLoop.pollTimeout` it tells how long the poll is about to wait: the daemon measures from it
/// whether the poll came back when it meant to (a stopped or starved process does not).
/// An active prepare handle keeps `run()` going; `unref()` it if it should not.
public final class UVPrepare: UVHandle {
    private var callback: (() -> Void)?

    /// Creates a stopped prepare handle (`uv_prepare_init`).
    public init(loop: UVLoop) {
        super.init(loop: loop, type: UV_PREPARE)
        uvMust(uv_prepare_init(loop.raw, prepare), "uv_prepare_init")
        didRegister()
    }

    private var prepare: UnsafeMutablePointer<uv_prepare_t> { rawHandle.assumingMemoryBound(to: uv_prepare_t.self) }

    /// Runs `callback` before the I/O poll of every iteration (`uv_prepare_start`). Replaces any previous callback.
    public func start(_ callback: @escaping () -> Void) {
        loop.assertOnLoop()
        precondition(!isClosing, "UVPrepare.start on a closed handle")
        self.callback = callback
        uvMust(uv_prepare_start(prepare, { prepare in
            owner(of: prepare!, as: UVPrepare.self).callback?()
        }), "uv_prepare_start")
    }

    /// Stops running the callback (`uv_prepare_stop`).
    public func stop() {
        loop.assertOnLoop()
        guard !isClosing else { return }
        uvMust(uv_prepare_stop(prepare), "uv_prepare_stop")
    }

    override func didClose() { callback = nil }
}
