import UVKit

/// The loop the daemon runs on, as the daemon sees it: a clock in milliseconds, one deadline timer,
/// a way to be woken, and the thread check. `UVDaemonLoop` is libuv's; FlowDaemonTesting's embedded
/// daemon has one that moves only when a test says so (swift-nio's `EmbeddedEventLoop` idea).
package protocol DaemonLoop: AnyObject {
    /// Milliseconds on the loop's clock.
    var now: UInt64 { get }
    /// Traps when called off the loop's thread.
    func assertOnLoop()
    /// Handles open on the loop (for `Stats`).
    var openHandleCount: Int { get }
    /// Arms the one deadline timer for `deadline` (nil disarms it); `fire` runs once it passes.
    func setDeadline(_ deadline: UInt64?, _ fire: @escaping () -> Void)
    /// Runs `work` soon on the loop even if no I/O wakes it (close callbacks left frames behind).
    func wake(_ work: @escaping () -> Void)
}

/// The daemon's loop on libuv: the clock is `uv_now`, the deadline and the wake-up are two `UVTimer`s,
/// created by `start` and closed by `stop` (so a finished daemon leaves no handle open).
final class UVDaemonLoop: DaemonLoop {
    /// The libuv loop.
    let uv: UVLoop
    private var flushCheck: UVCheck?
    private var deadlineTimer: UVTimer?
    private var wakeTimer: UVTimer?

    init(_ uv: UVLoop) { self.uv = uv }

    var now: UInt64 { uv.now }

    func assertOnLoop() { uv.assertOnLoop() }

    var openHandleCount: Int { uv.openHandleCount }

    /// Creates the timers and runs `flush` once per loop iteration (`uv_check`).
    func start(flush: @escaping () -> Void) {
        let check = UVCheck(loop: uv)
        check.start(flush)
        flushCheck = check
        deadlineTimer = UVTimer(loop: uv)
        wakeTimer = UVTimer(loop: uv)
    }

    /// Closes the timers and the check.
    func stop() {
        flushCheck?.close()
        flushCheck = nil
        deadlineTimer?.close()
        deadlineTimer = nil
        wakeTimer?.close()
        wakeTimer = nil
    }

    func setDeadline(_ deadline: UInt64?, _ fire: @escaping () -> Void) {
        guard let timer = deadlineTimer else { return }
        guard let deadline else {
            timer.stop()
            return
        }
        let now = uv.now
        timer.start(after: deadline > now ? deadline - now : 0, fire)
    }

    func wake(_ work: @escaping () -> Void) {
        guard let wakeTimer, !wakeTimer.isActive else { return }
        wakeTimer.start(after: 0, work)
    }
}
