/// Connections with frames in their outbox, written once per loop iteration so that a burst of
/// replies becomes one write; a peer whose unread bytes pass the limit is handed back to be cut
/// (a stalled reader is disconnected, never allowed to block others or grow without bound).
struct WriteScheduler {
    private var dirty: [Connection] = []
    /// The storage of the last batch taken, emptied and kept for the next: taking `dirty` whole while
    /// emptying it in place made it allocate again on every iteration (callgrind, `flowd-relay`).
    private var spare: [Connection] = []

    /// Whether nothing waits to be written.
    var isEmpty: Bool { dirty.isEmpty }

    /// Notes that `connection` has frames to write this iteration.
    mutating func mark(_ connection: Connection) {
        guard !connection.isDirty else { return }
        connection.isDirty = true
        dirty.append(connection)
    }

    /// The connections to flush, taken out: the caller flushes them with `flush(_:limit:)` after this
    /// access ended (a pipe may report a write failure from inside `write`, and its handler may queue
    /// more, which marks the scheduler again), then gives the batch back (`giveBack`).
    mutating func takeDirty() -> [Connection] {
        guard !dirty.isEmpty else { return [] }
        var batch = spare
        spare = []
        swap(&batch, &dirty)
        return batch
    }

    /// Keeps a flushed batch's storage, emptied, for the next `takeDirty`.
    mutating func giveBack(_ batch: inout [Connection]) {
        // An empty batch is the `[]` of an iteration with nothing to write: the kept storage stays.
        guard !batch.isEmpty else { return }
        swap(&spare, &batch)
        spare.removeAll(keepingCapacity: true)
    }

    /// Hands every outbox of `batch` to its pipe; returns the connections whose unread bytes now pass `limit`.
    static func flush(_ batch: [Connection], limit: Int) -> [Connection] {
        var stalled: [Connection] = []
        for connection in batch {
            connection.isDirty = false
            connection.flush()
            if connection.pipe.writeQueueSize > limit { stalled.append(connection) }
        }
        return stalled
    }
}
