/// How long the daemon's loop could not look at its sockets: the process was stopped (SIGSTOP, job
/// control, a debugger), frozen (a cgroup freezer, a VM pause, swapping) or starved of CPU. The
/// daemon judges its peers on a clock that leaves this time out (`DaemonLoop.now`): an ack, a `Pong`
/// or a resume that waited in a socket buffer while flowd could not read it is never late for that.
///
/// The loop reports the points of each iteration on its own clock (`uv_now`, read when the iteration
/// begins and again right after the poll returns): before its timers act (`resumed`), before it polls
/// and how long it means to wait (`willPoll`), and after the poll (`polled`). Between two points it
/// either waits in the poll or runs, and two things are a pause:
/// - a poll that came back more than `threshold` after it meant to: the whole wait is left out.
///   Nothing tells when in the wait the process stopped, and a stopped `epoll_wait` returns `EINTR`
///   without reading anything, after which libuv runs the timers before it polls again;
/// - more than `threshold` from a poll's return to the next iteration's start, where the loop only
///   runs: the poll's callbacks, the flush, the next timers (a stop inside a read callback, or right
///   after the write a peer reacts to).
///
/// Shorter lateness is scheduling noise and counts as time the loop looked, so on a busy machine the
/// clock still moves and a hung host is still found. No clock is read for it beyond the loop's own.
package struct LoopAttention {
    /// Lateness up to this many milliseconds is noise, not a pause.
    package static let threshold: UInt64 = 100

    /// Milliseconds left out of the daemon's clock so far.
    package private(set) var unattended: UInt64 = 0
    /// Pauses found so far.
    package private(set) var pauses: UInt64 = 0
    /// The last point reported outside a poll (nil: none yet).
    private var lastPoint: UInt64?
    /// The poll in progress: when it began and how long it meant to wait (nil: for I/O alone).
    private var poll: (began: UInt64, wait: UInt64?)?

    /// Nothing left out yet.
    package init() {}

    /// The loop runs at `now` (ms on the loop's clock) outside a poll, its timers about to act:
    /// returns the pause since the last point (0: none), already left out of the clock.
    package mutating func resumed(at now: UInt64) -> UInt64 {
        defer { lastPoint = now }
        guard let last = lastPoint, now > last + Self.threshold else { return 0 }
        return leaveOut(now - last)
    }

    /// A poll begins at `now` and means to wait `wait` ms (nil: until I/O); returns the pause since
    /// the last point, as `resumed` does.
    package mutating func willPoll(at now: UInt64, wait: UInt64?) -> UInt64 {
        let pause = resumed(at: now)
        poll = (now, wait)
        return pause
    }

    /// The poll returned at `returned`; returns the pause its wait showed (0: none), already left
    /// out of the clock. What runs after it is measured from here at the next point.
    package mutating func polled(returned: UInt64) -> UInt64 {
        defer { lastPoint = returned }
        guard let poll else { return 0 }
        self.poll = nil
        let waited = returned > poll.began ? returned - poll.began : 0
        guard let wait = poll.wait, waited > wait + Self.threshold else { return 0 }
        return leaveOut(waited)
    }

    private mutating func leaveOut(_ pause: UInt64) -> UInt64 {
        unattended += pause
        pauses += 1
        return pause
    }
}
