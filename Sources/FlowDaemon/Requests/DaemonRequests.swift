import FlowKit

/// The flows' requests the daemon is answering: timers waiting on the loop's clock and work running
/// off the loop, by request id. What is outstanding is the runtime's to say
/// (`FlowRuntime.outstandingRequests`); this is only what the daemon started.
struct DaemonRequests {
    /// Timers by the loop-clock time they fire at.
    var timers = TimerQueue<RequestID>()
    /// Work running, with its task (cancelled when the request is).
    var work: [RequestID: Task<Void, Never>] = [:]

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
