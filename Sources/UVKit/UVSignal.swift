import CLibUV

/// A signal watcher on the loop (`uv_signal_t`): the callback runs on the loop thread, not in a signal handler.
public final class UVSignal: UVHandle {
    private var callback: ((Int32) -> Void)?

    /// Creates a stopped signal watcher (`uv_signal_init`).
    public init(loop: UVLoop) throws(UVError) {
        super.init(loop: loop, type: UV_SIGNAL)
        try uvCheck(uv_signal_init(loop.raw, signal), "uv_signal_init")
        didRegister()
    }

    private var signal: UnsafeMutablePointer<uv_signal_t> { rawHandle.assumingMemoryBound(to: uv_signal_t.self) }

    /// Watches `signum`; `callback` gets the signal number each time it arrives (`uv_signal_start`).
    public func start(_ signum: Int32, _ callback: @escaping (Int32) -> Void) throws(UVError) {
        loop.assertOnLoop()
        precondition(!isClosing, "UVSignal.start on a closed handle")
        self.callback = callback
        try uvCheck(uv_signal_start(signal, { signal, signum in
            owner(of: signal!, as: UVSignal.self).callback?(signum)
        }, signum), "uv_signal_start")
    }

    /// Stops watching (`uv_signal_stop`); the default disposition returns when no watcher is left.
    public func stop() {
        loop.assertOnLoop()
        guard !isClosing else { return }
        uvMust(uv_signal_stop(signal), "uv_signal_stop")
    }

    override func didClose() { callback = nil }

    /// Ignores `SIGPIPE` process-wide so a write to a closed socket returns `EPIPE` instead of killing the process.
    public static func ignoreBrokenPipe() {
        uvMust(clibuv_ignore_sigpipe(), "sigaction(SIGPIPE)")
    }
}
