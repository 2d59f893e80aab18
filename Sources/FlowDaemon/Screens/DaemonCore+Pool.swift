import FlowKit
import FlowWire

extension DaemonCore {
    /// Sets up the warm pools of the app's spawned kinds whose factory is decided (a deferred factory's
    /// pool starts when its first screen is placed): their processes start now.
    mutating func startPools() {
        for kind in processes.kindsPooledAtStart { decidePool(of: kind) }
    }

    /// Reads `kind`'s pool size from its factory once (resolving a deferred one) and fills the pool.
    mutating func decidePool(of kind: String) {
        guard let size = processes.decidePool(of: kind), size > 0, phase == .running else { return }
        logger.info("keeping a warm pool of screen processes", metadata: ["kind": "\(kind)", "size": "\(min(size, SpawnPool.maxSize))"])
        perform(delivery.setPool(kind, size: size))
    }

    /// Performs the delivery's actions for the warm pools.
    mutating func performPool(_ action: ScreenDelivery.Action) {
        switch action {
        case .spawnPooled(let kind):
            guard let host = startProcess(for: nil, kind: kind) else { return perform(delivery.pooledSpawnFailed(kind: kind, now: loop.now)) }
            perform(delivery.pooledSpawned(kind: kind, host: host))
        case .tookPooled(let screen, let kind, let host):
            processes.spawned[connection: host]?.assign(screen)
            logger.info("screen goes to a pooled process", metadata: [
                "screen": "\(screen)", "kind": "\(kind)", "connection": "\(host)", "pid": "\(processes.spawned[connection: host]?.pid ?? 0)",
            ])
        case .stopPooled(let host):
            if let connection = connections[host] {
                send(.shutdown(.init(reason: .daemonExiting, message: "flowd is stopping; this pooled screen process is not needed")), to: connection)
                closeGracefully(connection)
            }
            processes.retire(connection: host, reason: "the pool stopped", now: loop.now)
        case .poolSuspended(let kind, let deaths):
            logger.error("pooled screen processes keep dying before use; the pool stops refilling until a screen of the kind is placed: check that the executable starts and waits for its Place", metadata: [
                "kind": "\(kind)", "deaths": "\(deaths)",
            ])
        default:
            break
        }
    }

    /// A pooled process finished its handshake: it waits for a screen of `kind`.
    mutating func pooledProcessReady(_ connection: Connection, kind: String) {
        let ready = delivery.pool.members.values.count { $0.kind == kind && $0.isReady }
        logger.info("pooled screen process ready: \(ready) of \(delivery.pool.sizes[kind] ?? 0) for \(kind)", metadata: [
            "connection": "\(connection.label)", "pid": "\(connection.peerPID)",
        ])
    }
}
