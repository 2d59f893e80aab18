import FlowKit
import FlowWire

extension AppCore {
    /// Sets up the warm pools of the app's spawned kinds whose factory is decided (a deferred factory's
    /// pool starts when its first screen is placed): their processes start now.
    mutating func startPools() {
        guard let app else { return }
        for kind in app.kinds {
            if case .deferred = app.factory(for: kind) { continue }
            decidePool(of: kind)
        }
    }

    /// Reads `kind`'s pool size from its factory once (resolving a deferred one) and fills the pool.
    mutating func decidePool(of kind: String) {
        guard let app, !poolsDecided.contains(kind) else { return }
        poolsDecided.insert(kind)
        let size = app.factory(for: kind).resolved.poolSize
        guard size > 0, isRunning else { return }
        logger.info("keeping a warm pool of screen processes", metadata: ["kind": "\(kind)", "size": "\(min(size, SpawnPool.maxSize))"])
        perform(delivery.setPool(kind, size: size))
    }

    /// Performs the delivery's actions for the warm pools.
    mutating func performPool(_ action: ScreenDelivery.Action) {
        switch action {
        case .spawnPooled(let kind):
            act(.spawn(nil, kind: kind))
        case .tookPooled(let screen, let kind, let host):
            act(.assignPooled(screen, kind: kind, host: host))
        case .stopPooled(let host):
            act(.retire(host: host, shutdown: .init(reason: .daemonExiting, message: "flowd is stopping; this pooled screen process is not needed"),
                        reason: "the pool stopped"))
        case .poolSuspended(let kind, let deaths):
            logger.error("pooled screen processes keep dying before use; the pool stops refilling until a screen of the kind is placed: check that the executable starts and waits for its Place", metadata: [
                "kind": "\(kind)", "deaths": "\(deaths)",
            ])
        default:
            break
        }
    }

    /// The pooled process started for `kind` runs, on connection `host`.
    mutating func pooledSpawned(kind: String, host: UInt64) {
        perform(delivery.pooledSpawned(kind: kind, host: host))
        drive()
    }

    /// No pooled process of `kind` could be started.
    mutating func pooledSpawnFailed(kind: String) {
        perform(delivery.pooledSpawnFailed(kind: kind, now: loop.now))
        drive()
    }

    /// A pooled process finished its handshake: it waits for a screen of `kind`.
    mutating func pooledProcessReady(_ host: UInt64, label: String, pid: Int32, kind: String) {
        let ready = delivery.pool.members.values.count { $0.kind == kind && $0.isReady }
        logger.info("pooled screen process ready: \(ready) of \(delivery.pool.sizes[kind] ?? 0) for \(kind)", metadata: [
            "connection": "\(label)", "pid": "\(pid)",
        ])
    }
}
