import FlowDaemon
import Foundation

/// The embedded daemon's loop: a clock that moves only when the test advances it (and a wall clock
/// that moves with it), the one deadline the daemon armed, the work libuv would run on the next
/// iteration (close and shutdown callbacks, wake-ups), and the flows' work on a queue of its own
/// whose results wait in the inbox until the test takes them. Single-threaded: everything but the
/// flows' work runs on the thread that created it.
final class EmbeddedLoop: DaemonLoop {
    private(set) var now: UInt64 = 0
    /// Milliseconds the test paused the loop for (`pause(for:)`): they pass on the wall clock only.
    private(set) var unattended: UInt64 = 0
    private var deadline: UInt64?
    private var fire: (() -> Void)?
    private var wakeUp: (() -> Void)?
    private var nextIteration: [() -> Void] = []
    private let thread = pthread_self()
    /// Pipes not closed yet (the embedded daemon's "open handles").
    var openPipes = 0
    /// The wall clock (milliseconds since the Unix epoch) when `now` was 0.
    let wallClockOrigin: UInt64
    private let jobs = EmbeddedInbox()
    private let executor = EmbeddedWorkExecutor()

    init(wallClock: UInt64) { wallClockOrigin = wallClock }

    /// The test moves this clock (`advance`): a start takes no time on it.
    func refreshClock() {}

    func assertOnLoop() {
        precondition(pthread_equal(thread, pthread_self()) != 0, "the embedded daemon is used from another thread than the one that created it")
    }

    var openHandleCount: Int { openPipes }

    func setDeadline(_ deadline: UInt64?, _ fire: @escaping () -> Void) {
        self.deadline = deadline
        self.fire = deadline == nil ? nil : fire
    }

    func wake(_ work: @escaping () -> Void) {
        if wakeUp == nil { wakeUp = work }
    }

    var wallClock: UInt64 { wallClockOrigin + now + unattended }

    /// The process was stopped for `milliseconds`: the wall and monotonic clocks move, the daemon's does not.
    func pause(for milliseconds: UInt64) { unattended += milliseconds }

    var inbox: (any LoopInbox)? { jobs }

    func runOffLoop(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        Task.detached(executorPreference: executor) { await work() }
    }

    /// Runs the jobs the flows' work posted, waiting until `deadline` for one if none came yet;
    /// returns how many ran.
    func runPostedJobs(waitingUntil deadline: Date) -> Int {
        let posted = jobs.take(waitingUntil: deadline)
        for job in posted { job() }
        return posted.count
    }

    /// Takes no more posted jobs (the daemon crashed).
    func closeInbox() { jobs.close() }

    /// Queues work for the next iteration (what libuv does with close callbacks).
    func later(_ work: @escaping () -> Void) {
        nextIteration.append(work)
    }

    /// Whether an iteration has something to do.
    var hasWork: Bool { !nextIteration.isEmpty || wakeUp != nil }

    /// Runs what the next iteration would: queued callbacks, then a requested wake-up.
    func iterate() {
        let work = nextIteration
        nextIteration.removeAll()
        for job in work { job() }
        if let wakeUp {
            self.wakeUp = nil
            wakeUp()
        }
    }

    /// The armed deadline, if any.
    var armedDeadline: UInt64? { deadline }

    /// Moves the clock to `time`; returns the deadline callback if the armed deadline passed.
    func move(to time: UInt64) -> (() -> Void)? {
        now = max(now, time)
        guard let deadline, deadline <= now, let fire else { return nil }
        self.deadline = nil
        self.fire = nil
        return fire
    }
}
