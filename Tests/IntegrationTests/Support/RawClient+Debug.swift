import FlowWire
import Testing

extension RawClient {
    /// Sends a debug request and returns the frame that answers it.
    func request(_ body: Flowd_V1_Envelope.OneOf_Body) throws -> Flowd_V1_Envelope {
        let seq = try send(body)
        while let frame = try receive() {
            if frame.replyTo == seq { return frame }
        }
        throw RawClientError.unexpected
    }

    /// The daemon's counters.
    func stats() throws -> Flowd_V1_Stats {
        guard case .stats(let stats) = try request(.getStats(Flowd_V1_GetStats())).body else { throw RawClientError.unexpected }
        return stats
    }

    /// The daemon's tree.
    func tree() throws -> Flowd_V1_Tree {
        guard case .tree(let tree) = try request(.getTree(Flowd_V1_GetTree())).body else { throw RawClientError.unexpected }
        return tree
    }

    /// Asks for the counters until `done` holds or `seconds` passed (each
    /// request is a round trip, so this paces itself on the daemon).
    func stats(until done: (Flowd_V1_Stats) -> Bool, seconds: Double = 10) throws -> Flowd_V1_Stats {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var stats = try stats()
        while !done(stats), ContinuousClock.now < deadline { stats = try self.stats() }
        return stats
    }
}
