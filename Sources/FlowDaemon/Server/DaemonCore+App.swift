import FlowApp
import FlowKit
import FlowWire

/// The daemon's side of the app's half: it enters `AppCore` with what hosts, processes and the
/// loop did, and performs the actions it returns on connections and processes.
extension DaemonCore {
    /// Opens the journal of `configuration.statePath` (a journal that cannot be replayed is moved
    /// aside and a fresh one starts; a file that cannot be used at all throws).
    package mutating func openState() throws(DaemonError) {
        try app.openState()
    }

    /// Creates the runtime and starts the app's root flow, restoring from the journal first.
    package mutating func startApp() {
        // The pools' processes start first, so that the first screens can go to them.
        app.startPools()
        performAppActions()
        app.start()
        performAppActions()
    }

    /// Performs what the app's half asked for, and what performing it makes the app ask in turn.
    mutating func performAppActions() {
        guard app.hasActions else { return }
        var actions = appActions
        appActions = []
        while app.hasActions {
            app.takeActions(into: &actions)
            actions.takeEach { perform($0) }
        }
        appActions = actions
    }

    private mutating func perform(_ action: AppCore.Action) {
        switch action {
        case .send(let body, let host, let replyTo):
            // A spawned host still in its handshake gets nothing before `Welcome`.
            guard let connection = connections[host], connection.agreement != nil else { return }
            send(body, to: connection, replyTo: replyTo)
        case .command(let outgoing, let host, let stateContentType):
            if let connection = connections[host] { send(hosts.command(outgoing, to: host), stateContentType: stateContentType, to: connection) }
        case .spawn(let screen?, let kind):
            // Dismissed since it asked (in the same call): no process, rather than one retired at once.
            guard app.awaitsProcess(screen) else { return }
            if let host = startProcess(for: screen, kind: kind) { app.spawned(screen, host: host) } else { app.spawnFailed(screen) }
        case .spawn(nil, let kind):
            if let host = startProcess(for: nil, kind: kind) { app.pooledSpawned(kind: kind, host: host) } else { app.pooledSpawnFailed(kind: kind) }
        case .retire(let host, let shutdown, let reason):
            if let connection = connections[host] {
                send(.shutdown(shutdown), to: connection)
                closeGracefully(connection)
            }
            hosts.retire(host, reason: reason, now: loop.now)
        case .assignPooled(let screen, let kind, let host):
            let pid = hosts.assign(screen, to: host)
            logger.info("screen goes to a pooled process", metadata: [
                "screen": "\(screen)", "kind": "\(kind)", "connection": "\(host)", "pid": "\(pid)",
            ])
        case .survival(let report, let owner):
            if let notice = hosts.report(report, owner: owner) { tell(notice) }
        case .flowsUnwound:
            // Draining may begin (at the end of this iteration).
            shutdown.unwound()
        case .stop(let reason, let message):
            // The app ended: the shutdown begins at the end of this iteration, after the frames read were answered.
            shutdown.request(.init(reason, message))
        }
    }

    /// A piece of a flow's work finished (on the loop's thread, from the inbox).
    mutating func workFinished(_ result: ExternalWorkResult) {
        app.workFinished(result)
        performAppActions()
    }
}
