import FlowWire

extension Daemon {
    /// The debug counters: they return to their starting values once
    /// everything a client caused has been unwound.
    func stats() -> Flowd_V1_Stats {
        var stats = Flowd_V1_Stats()
        stats.connections = UInt64(connections.count)
        stats.openDescriptors = UInt64(max(0, ResourceLimits.openDescriptorCount()))
        stats.libuvHandles = UInt64(loop.openHandleCount)
        return stats
    }

    /// A snapshot of what the daemon holds, for `flowctl tree`.
    func tree() -> Flowd_V1_Tree {
        var tree = Flowd_V1_Tree()
        tree.app = appName
        tree.stats = stats()
        tree.connections = connections.values.sorted { $0.id < $1.id }.map { connection in
            var info = Flowd_V1_ConnectionInfo()
            info.id = connection.id
            info.pid = connection.peerPID
            info.writeQueueBytes = UInt64(connection.pendingBytes)
            if let agreement = connection.agreement {
                info.role = agreement.role == .debug ? "debug" : "screen-host"
                info.name = agreement.name
                info.provides = agreement.provides
            } else {
                info.role = "handshaking"
            }
            return info
        }
        return tree
    }
}
