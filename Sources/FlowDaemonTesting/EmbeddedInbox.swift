import FlowDaemon
import Foundation

/// The embedded loop's way in from other threads: jobs the flows' work posts wait here until the
/// test takes them (`EmbeddedDaemon.waitForWork`), so a result never enters the daemon behind the
/// test's back, at a moment that depends on the machine.
final class EmbeddedInbox: LoopInbox, @unchecked Sendable {
    // @unchecked Sendable: `jobs` and `isOpen` are only touched with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var isOpen = true

    @discardableResult
    func enqueue(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard isOpen else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Takes the jobs posted so far, waiting until `deadline` for one if there is none; empty when
    /// none came in time.
    func take(waitingUntil deadline: Date) -> [@Sendable () -> Void] {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty, isOpen {
            guard condition.wait(until: deadline) else { break }
        }
        defer { jobs.removeAll() }
        return jobs
    }

    /// Takes nothing more (the daemon crashed or stopped): later posts are dropped.
    func close() {
        condition.lock()
        defer { condition.unlock() }
        isOpen = false
        jobs.removeAll()
        condition.broadcast()
    }
}

/// Runs the embedded daemon's work on a dispatch queue of its own instead of the cooperative pool,
/// so a test thread blocked in `waitForWork` can never starve the work it waits for.
final class EmbeddedWorkExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "flowd.embedded.work", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
