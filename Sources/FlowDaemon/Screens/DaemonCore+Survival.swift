import FlowKit
import FlowWire
#if canImport(Glibc)
import Glibc
#endif

extension DaemonCore {
    /// One watchdog tick: pings hosts with commands unacknowledged; a host that left the last ping
    /// unanswered for the hang timeout is killed or disconnected, as `Survival.hung` decides.
    mutating func watchdogTick(now: UInt64) {
        guard var dog = survival.watchdog else { return }
        let actions = dog.tick(now: now, awaitingAcks: app.delivery.hostsAwaitingAcks) { [connections] in connections[$0]?.lastHeard }
        survival.watchdog = dog
        for action in actions {
            switch action {
            case .ping(let host, let nonce):
                if let connection = connections[host], !connection.isClosing {
                    var ping = Flowd_V1_Ping()
                    ping.nonce = nonce
                    send(.ping(ping), to: connection)
                }
            case .hung(let host, let silentFor):
                guard let connection = connections[host], !connection.isClosing else { continue }
                let (notice, fate) = survival.hung(host, label: connection.label, silentFor: silentFor,
                                                         child: processes.spawned[connection: host])
                tell(notice)
                switch fate {
                case .kill(let child):
                    // Its exit (by signal) brings the restart policy in. The connection is closed now, so
                    // that a process slow to die (SIGKILL pending in uninterruptible sleep) is found once.
                    child.send(SIGKILL)
                case .disconnect(let message):
                    connection.queue(.shutdown(.init(reason: .hung, message: message)))
                    // A hung peer will not drain its queue: hand the Shutdown to the kernel if it takes
                    // it (try-write), then close now; it may still resume.
                    connection.flush()
                }
                connection.forceClose()
            }
        }
    }
}
