/// Connections with frames in their outbox, written once per loop iteration so that a burst of
/// replies becomes one write; a peer whose unread bytes pass the limit is handed back to be cut
/// (a stalled reader is disconnected, never allowed to block others or grow without bound).
struct WriteScheduler {
    private var dirty: [Connection] = []

    /// Whether nothing waits to be written.
    var isEmpty: Bool { dirty.isEmpty }

    /// Notes that `connection` has frames to write this iteration.
    mutating func mark(_ connection: Connection) {
        guard !connection.isDirty else { return }
        connection.isDirty = true
        dirty.append(connection)
    }

    /// Hands every outbox to its pipe; returns the connections whose unread bytes now pass `limit`.
    mutating func flush(limit: Int) -> [Connection] {
        guard !dirty.isEmpty else { return [] }
        let batch = dirty
        dirty.removeAll(keepingCapacity: true)
        var stalled: [Connection] = []
        for connection in batch {
            connection.isDirty = false
            connection.flush()
            if connection.pipe.writeQueueSize > limit { stalled.append(connection) }
        }
        return stalled
    }
}
