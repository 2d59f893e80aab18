import FlowApp

/// The injections and terminations debug clients asked for, with who asked: the last `capacity`
/// entries in memory (a ring), refused ones included. Read with `GetTree {audit: true}`
/// (`flowctl audit`); each entry is also one log line (rate-limited with the daemon's other lines a
/// peer can repeat). Kept apart from the event stream, which drops events for a slow watcher and
/// holds nothing for a later reader.
struct AuditLog {
    /// One audited request.
    struct Entry: Equatable {
        /// Grows by one per entry since the daemon started.
        var seq: UInt64
        /// When (milliseconds since the Unix epoch).
        var time: UInt64
        var connection: UInt64
        var identity: PeerIdentity
        /// `inject-output`, `inject-navigation`, `terminate-flow`.
        var action: String
        /// `screen 5`, `flow 3`.
        var target: String
        /// The policy's refusal; nil: let through to the flows.
        var refusal: String?
    }

    /// Entries kept.
    let capacity: Int
    private var ring: [Entry] = []
    /// Where the next entry goes once the ring is full.
    private var next = 0
    /// Entries recorded since start.
    private(set) var count: UInt64 = 0

    init(capacity: Int = 256) {
        precondition(capacity > 0, "an audit log keeps at least one entry")
        self.capacity = capacity
    }

    /// Records one entry and returns it (numbered).
    @discardableResult
    mutating func record(time: UInt64, connection: UInt64, identity: PeerIdentity, action: String, target: String,
                         refusal: String?) -> Entry {
        count += 1
        let entry = Entry(seq: count, time: time, connection: connection, identity: identity, action: action, target: target,
                          refusal: refusal)
        if ring.count < capacity {
            ring.append(entry)
        } else {
            ring[next] = entry
            next = (next + 1) % capacity
        }
        return entry
    }

    /// The entries kept, oldest first.
    var entries: [Entry] { Array(ring[next...] + ring[..<next]) }
}
