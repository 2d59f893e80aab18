import CLibUV
import Synchronization

/// The one way into the loop from other threads: `enqueue` a closure from anywhere, it runs on the loop thread
/// (`uv_async_t` plus a mutex-protected array). `uv_async_send` calls coalesce, so each wake-up drains the whole
/// queue; closures run in the order they were enqueued. An open queue keeps `run()` going; `unref()` it if it
/// should not.
public final class LoopQueue: UVHandle, @unchecked Sendable {
    // @unchecked Sendable: from other threads only `enqueue` is called, and it touches nothing but `pending`
    // (behind the mutex) and the handle memory, which cannot be freed while `pending.isOpen` is true under the lock.
    private struct Pending: ~Copyable {
        var jobs: [@Sendable () -> Void] = []
        var isOpen = false
    }

    private let pending = Mutex(Pending())

    /// Creates the queue (`uv_async_init`).
    public init(loop: UVLoop) throws(UVError) {
        super.init(loop: loop, type: UV_ASYNC)
        try uvCheck(uv_async_init(loop.raw, async, { async in
            owner(of: async!, as: LoopQueue.self).drain()
        }), "uv_async_init")
        didRegister()
        pending.withLock { $0.isOpen = true }
    }

    private var async: UnsafeMutablePointer<uv_async_t> { rawHandle.assumingMemoryBound(to: uv_async_t.self) }

    /// Runs `job` on the loop thread soon. Safe from any thread, including the loop's.
    /// Returns `false` (and drops `job`) once the queue is closing.
    @discardableResult
    public func enqueue(_ job: @escaping @Sendable () -> Void) -> Bool {
        pending.withLock { pending in
            guard pending.isOpen else { return false }
            pending.jobs.append(job)
            // Only the first job after a drain needs a wake-up: the later ones ride on it.
            if pending.jobs.count == 1 { uvMust(uv_async_send(async), "uv_async_send") }
            return true
        }
    }

    private func drain() {
        var jobs: [@Sendable () -> Void] = []
        pending.withLock { swap(&jobs, &$0.jobs) }
        for job in jobs { job() }
    }

    override func willClose() {
        pending.withLock { $0.isOpen = false }
        // Jobs accepted before closing still run: they were promised.
        drain()
    }
}
