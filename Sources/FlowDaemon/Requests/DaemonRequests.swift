import FlowKit

/// The flows' requests the daemon is answering: timers waiting on the loop's clock and work running
/// off the loop, by request id. What is outstanding is the runtime's to say
/// (`FlowRuntime.outstandingRequests`); this is only what the daemon started.
struct DaemonRequests {
    /// Timers by the loop-clock time they fire at.
    private(set) var timers = TimerQueue<RequestID>()
    /// Work running, with its task (cancelled when the request is).
    private var work: [RequestID: Task<Void, Never>] = [:]

    /// Sets timer `id` for `milliseconds` on the loop's clock at `now`; `wall` is the wall clock
    /// (milliseconds since the epoch). A timer started for the first time (`deadline` nil) returns the
    /// input that journals its wall-clock deadline (`.timerStarted`); one started again after a restore
    /// waits only what is left of its `deadline`, never longer than it asked (a wall clock set back).
    /// Returns the wait too, for the log.
    mutating func startTimer(_ id: RequestID, milliseconds: UInt64, deadline: UInt64?, now: UInt64, wall: UInt64)
        -> (wait: UInt64, journal: FlowInput?) {
        var wait = milliseconds
        var journal: FlowInput?
        if let deadline {
            wait = min(milliseconds, deadline > wall ? deadline - wall : 0)
        } else {
            let (deadline, overflow) = wall.addingReportingOverflow(milliseconds)
            journal = .timerStarted(id, deadline: overflow ? .max : deadline)
        }
        let (at, overflow) = now.addingReportingOverflow(wait)
        timers.add(id, at: overflow ? .max : at)
        return (wait, journal)
    }

    /// When the next timer fires.
    var nextDeadline: UInt64? { timers.next }

    /// The timers whose time came by `now`, taken.
    mutating func expire(now: UInt64) -> [RequestID] { timers.expired(now: now) }

    /// Work `id` runs as `task`.
    mutating func started(_ id: RequestID, task: Task<Void, Never>) { work[id] = task }

    /// Work `id` finished: whether it was still wanted (not cancelled or dropped meanwhile).
    mutating func finished(_ id: RequestID) -> Bool { work.removeValue(forKey: id) != nil }

    /// Work started and not finished.
    var runningWorkCount: Int { work.count }

    /// Whether the daemon started this request and it has not been answered or dropped.
    func isStarted(_ id: RequestID) -> Bool { work[id] != nil || timers.contains(id) }

    /// Stops one request: its timer is removed, its work's task cancelled and its result will be
    /// dropped. Returns whether it was started.
    @discardableResult
    mutating func drop(_ id: RequestID) -> Bool {
        if let task = work.removeValue(forKey: id) {
            task.cancel()
            return true
        }
        return timers.remove(id)
    }

    /// Stops every request.
    mutating func dropAll() {
        for task in work.values { task.cancel() }
        work.removeAll()
        timers.removeAll()
    }
}

/// Carries a loop-thread object through a job another thread posts to the loop's inbox (swift-nio's
/// `NIOLoopBound`). @unchecked Sendable: `value` is read only inside jobs the inbox runs on the
/// loop's thread, where the object lives; other threads only carry it.
struct LoopBound<Value: AnyObject>: @unchecked Sendable {
    private(set) weak var value: Value?

    init(_ value: Value) { self.value = value }
}
