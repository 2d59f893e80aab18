import FlowWire

/// Counts of what the daemon did to keep screens alive, for `Stats`.
struct SurvivalCounts {
    var screenRestarts: UInt64 = 0
    var restartsGivenUp: UInt64 = 0
    var hostsResumed: UInt64 = 0
    var resumesExpired: UInt64 = 0
    var hostsHung: UInt64 = 0
}

extension Daemon {
    /// One watchdog tick: pings hosts with commands unacknowledged; a host that left the last ping
    /// unanswered for the hang timeout is killed (spawned: its restart policy applies) or
    /// disconnected (attached: it may resume). Other hosts are untouched.
    func watchdogTick(now: UInt64) {
        guard var dog = watchdog else { return }
        let actions = dog.tick(now: now, awaitingAcks: delivery.hostsAwaitingAcks) { [connections] in connections[$0]?.lastHeard }
        watchdog = dog
        for action in actions {
            switch action {
            case .ping(let host, let nonce):
                if let connection = connections[host], !connection.isClosing {
                    var ping = Flowd_V1_Ping()
                    ping.nonce = nonce
                    send(.ping(ping), to: connection)
                }
            case .hung(let host, let silentFor):
                hostHung(host, silentFor: silentFor)
            }
        }
    }

    private func hostHung(_ host: UInt64, silentFor: UInt64) {
        guard let connection = connections[host], !connection.isClosing else { return }
        survival.hostsHung += 1
        let spawned = spawnedHosts[host]
        logger.warning("screen host is hung: commands unacknowledged and no Pong; \(spawned == nil ? "disconnecting it" : "killing it")", metadata: [
            "connection": "\(connection.label)", "silent_ms": "\(silentFor)", "hang_timeout_ms": "\(configuration.hangTimeoutMilliseconds)",
        ])
        emitEvent(.hostHung, connection: host,
                  text: "\(connection.label) answered no Ping for \(silentFor) ms with commands unacknowledged; \(spawned == nil ? "disconnected (it may resume)" : "killed (SIGKILL)")")
        if let spawned {
            // Its exit (by signal) brings the restart policy in. The connection is closed now, so
            // that a process slow to die (SIGKILL pending in uninterruptible sleep) is found once.
            spawned.kill()
            connection.forceClose()
            return
        }
        connection.queue(.shutdown(.init(reason: .hung, message: "no Pong within \(configuration.hangTimeoutMilliseconds) ms with commands unacknowledged; reconnect with your resume token")))
        // A hung peer will not drain its queue: hand the Shutdown to the kernel if it takes it
        // (try-write), then close now; it may still resume.
        connection.flush()
        connection.forceClose()
    }
}
