import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Hands messages from the server's tasks to a thread that blocks in poll(2): a locked queue
/// plus a pipe whose read end the thread polls (ScreenKit's `addInput`, or its own poll).
/// Each `push` writes one byte; `drain` empties both, so coalesced wake-ups lose nothing.
final class WakeQueue<Element: Sendable>: @unchecked Sendable {  // the lock guards `items` and `closed`
    private let lock = NSLock()
    private var items: [Element] = []
    private var closed = false
    /// Readable whenever something was pushed since the last `drain`.
    let descriptor: Int32
    private let writeEnd: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0, "pipe(2) failed: \(String(cString: strerror(errno)))")
        descriptor = ends[0]
        writeEnd = ends[1]
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    }

    deinit {
        Glibc.close(descriptor)
        Glibc.close(writeEnd)
    }

    /// Queues `item` and wakes the thread; dropped once closed.
    func push(_ item: Element) {
        lock.lock()
        guard !closed else {
            lock.unlock()
            return
        }
        items.append(item)
        lock.unlock()
        var byte: UInt8 = 1
        _ = Glibc.write(writeEnd, &byte, 1)  // a full pipe already means "wake up"
    }

    /// Everything queued so far, oldest first.
    func drain() -> [Element] {
        var buffer = [UInt8](repeating: 0, count: 256)
        while Glibc.read(descriptor, &buffer, buffer.count) > 0 {}
        lock.lock()
        defer { lock.unlock() }
        let taken = items
        items = []
        return taken
    }

    /// Refuses further pushes (what is queued stays for `drain`).
    func close() {
        lock.lock()
        closed = true
        lock.unlock()
    }
}
