import Foundation
import UVKit

/// The loop the daemon runs on, as the daemon sees it: a clock in milliseconds (and the wall clock),
/// one deadline timer, a way to be woken, the way in from other threads, and the thread check.
/// `UVDaemonLoop` is libuv's; FlowDaemonTesting's embedded daemon has one that moves only when a test
/// says so (swift-nio's `EmbeddedEventLoop` idea).
package protocol DaemonLoop: AnyObject {
    /// Milliseconds on the daemon's clock: the monotonic clock less the time the loop could not look
    /// at its sockets (`unattended`: the process stopped, frozen or starved). Every deadline of the
    /// daemon is on it, so a peer is never judged for time flowd did not hear it (`LoopAttention`).
    var now: UInt64 { get }
    /// Milliseconds the loop could not look, left out of `now` so far (`LoopAttention`).
    var unattended: UInt64 { get }
    /// Reads the clock again before the loop runs: libuv reads it as an iteration begins, so the
    /// time a start took (a restore of 10^5 inputs: ~0.4 s) would come off every deadline it then
    /// sets (a re-placed screen's ack, a restored flow's timer), as if it had passed already.
    func refreshClock()
    /// Traps when called off the loop's thread.
    func assertOnLoop()
    /// Handles open on the loop (for `Stats`).
    var openHandleCount: Int { get }
    /// Arms the one deadline timer for `deadline` (nil disarms it); `fire` runs once it passes.
    func setDeadline(_ deadline: UInt64?, _ fire: @escaping () -> Void)
    /// Runs `work` in the next loop iteration, before its poll, even if no I/O wakes it (close callbacks
    /// left frames behind, a backlogged connection's next turn); at most one wake-up is pending.
    func wake(_ work: @escaping () -> Void)
    /// Milliseconds since the Unix epoch: the flows' timers are journaled with their deadline on
    /// this clock, so that a restored daemon waits only for what is left.
    var wallClock: UInt64 { get }
    /// Where other threads post jobs for the loop's thread (nil before `start` and after `stop`).
    var inbox: (any LoopInbox)? { get }
    /// Runs `work` off the loop's thread (a flow's asynchronous work); it posts its result to `inbox`.
    func runOffLoop(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never>
}

/// The one way into the loop from other threads: a job posted here runs on the loop's thread soon
/// (libuv: `LoopQueue`, `uv_async_send`). Returns false, dropping the job, once the loop stopped.
package protocol LoopInbox: Sendable {
    /// Runs `job` on the loop's thread soon; callable from any thread. False once the loop stopped.
    @discardableResult
    func enqueue(_ job: @escaping @Sendable () -> Void) -> Bool
}

extension LoopQueue: LoopInbox {}

extension DaemonLoop {
    /// Milliseconds on the monotonic clock, pauses included: for what others hold the daemon to
    /// (the service manager's watchdog wants its pings in real time, pause or not).
    var monotonicNow: UInt64 { now + unattended }
}

/// The daemon's loop on libuv: the clock is `uv_now` less the pauses a prepare and a check handle
/// around each poll find (`LoopAttention`), the deadline a `UVTimer`, the wake-up a
/// `UVIdle` (it runs once in the next iteration, before its poll, even when it wakes itself again: a
/// zero-timeout timer re-armed from its own callback runs again in the same timer phase on libuv
/// 1.44, and a backlog served that way never lets the poll run), the inbox a `LoopQueue`, created by `start` and closed by `stop` (so a finished daemon leaves no
/// handle open); work runs in detached tasks.
final class UVDaemonLoop: DaemonLoop {
    /// The libuv loop.
    let uv: UVLoop
    private var flushCheck: UVCheck?
    private var pollPrepare: UVPrepare?
    /// The pauses found so far: a box the handles' callbacks hold strongly (no unowned reference to
    /// take in each of them, twice per iteration).
    private let meter = PauseMeter()
    private var deadlineTimer: UVTimer?
    private var wakeIdle: UVIdle?
    private var queue: LoopQueue?

    init(_ uv: UVLoop) { self.uv = uv }

    var now: UInt64 { uv.now - meter.attention.unattended }

    var unattended: UInt64 { meter.attention.unattended }

    func refreshClock() { uv.updateTime() }

    func assertOnLoop() { uv.assertOnLoop() }

    var openHandleCount: Int { uv.openHandleCount }

    /// Creates the timers and runs `flush` once per loop iteration (`uv_check`). Around the poll and
    /// before the deadline acts, the time the loop could not look is left out of the clock
    /// (`LoopAttention`) and each pause told to `paused` (its milliseconds).
    func start(flush: @escaping () -> Void, paused: @escaping (UInt64) -> Void) {
        meter.onPause = paused
        let prepare = UVPrepare(loop: uv)
        prepare.start { [meter, uv] in
            // uv_now is when the iteration began: a stop in its timers shows as a late poll.
            meter.noticed(meter.attention.willPoll(at: uv.now, wait: uv.pollTimeout))
        }
        pollPrepare = prepare
        let check = UVCheck(loop: uv)
        check.start { [meter, uv] in
            // uv_now is when the poll returned: libuv reads the clock right after epoll_wait.
            meter.noticed(meter.attention.polled(returned: uv.now))
            flush()
        }
        flushCheck = check
        deadlineTimer = UVTimer(loop: uv)
        wakeIdle = UVIdle(loop: uv)
        // Without it (uv_async_init failed) the flows' work fails with a message; nothing else needs it.
        queue = try? LoopQueue(loop: uv)
    }

    /// Closes the timers and the check.
    func stop() {
        flushCheck?.close()
        flushCheck = nil
        pollPrepare?.close()
        pollPrepare = nil
        meter.onPause = nil
        deadlineTimer?.close()
        deadlineTimer = nil
        wakeIdle?.close()
        wakeIdle = nil
        queue?.close()
        queue = nil
    }

    func setDeadline(_ deadline: UInt64?, _ fire: @escaping () -> Void) {
        guard let timer = deadlineTimer else { return }
        guard let deadline else {
            timer.stop()
            return
        }
        let now = self.now
        // A deadline already passed fires after the next poll, not at 0 ms: libuv 1.44 runs a timer
        // re-armed for 0 ms from its own callback again in the same phase, without polling, so a
        // deadline that only the iteration's end clears (the journal's retry) would spin there.
        timer.start(after: deadline > now ? deadline - now : 1) { [meter, uv] in
            // Timers run first in an iteration, before any read: a stop since the last poll is left
            // out before the deadline is judged.
            meter.noticed(meter.attention.resumed(at: uv.now))
            fire()
        }
    }

    func wake(_ work: @escaping () -> Void) {
        guard let wakeIdle, !wakeIdle.isActive else { return }
        wakeIdle.start { [unowned wakeIdle] in
            wakeIdle.stop()
            work()
        }
    }

    /// Read once per reading of the loop's clock (`uv_now`, which libuv moves at each iteration's
    /// start and after its poll): the inputs an iteration reads get the same time, as their deadlines
    /// share `now`. A `Date()` per input cost 86 instructions per output (callgrind `flowd-echo`).
    var wallClock: UInt64 {
        let loopTime = uv.now
        if let read = meter.wallRead, read.loopTime == loopTime { return read.wall }
        let wall = UInt64(max(0, Date().timeIntervalSince1970 * 1000))
        meter.wallRead = (loopTime, wall)
        return wall
    }

    var inbox: (any LoopInbox)? { queue }

    func runOffLoop(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        Task.detached { await work() }
    }
}

/// The daemon loop's `LoopAttention`, whom it tells of a pause, and the wall clock's last reading,
/// in a box of its own.
private final class PauseMeter {
    var attention = LoopAttention()
    var onPause: ((UInt64) -> Void)?
    /// The wall clock's last reading and the loop time it was read at (`UVDaemonLoop.wallClock`).
    var wallRead: (loopTime: UInt64, wall: UInt64)?

    func noticed(_ pause: UInt64) {
        if pause > 0 { onPause?(pause) }
    }
}
