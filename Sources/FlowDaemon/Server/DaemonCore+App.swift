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
            if let connection = connections[host] { send(peers.command(outgoing, to: host), stateContentType: stateContentType, to: connection) }
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
            processes.retire(connection: host, reason: reason, now: loop.now)
        case .assignPooled(let screen, let kind, let host):
            processes.spawned[connection: host]?.assign(screen)
            logger.info("screen goes to a pooled process", metadata: [
                "screen": "\(screen)", "kind": "\(kind)", "connection": "\(host)", "pid": "\(processes.spawned[connection: host]?.pid ?? 0)",
            ])
        case .survival(let report, let owner):
            if let notice = survival.report(report, owner: owner) { tell(notice) }
        case .flowsUnwound:
            flowsUnwound()
        case .stop(let reason, let message):
            requestShutdown(reason: reason, message: message)
        }
    }

    /// A connection closed: its screens are lost, held for a restart or a resume, or complete their
    /// dismissal as `hostLost`.
    mutating func hostLeft(_ connection: Connection) {
        survival.watchdog?.forget(connection.id)
        app.hostLeft(connection.id, resumable: connection.mayResume)
        if !app.delivery.isDetached(connection.id) {
            survival.tokens.retire(connection.id, because: .hostLeft)
        }
        processes.spawned.mustExit(connection: connection.id, now: loop.now)
        performAppActions()
    }

    /// Starts a process of `kind` for `screen` (nil: for its warm pool) whose socket joins as a
    /// connection of this daemon, and watches its exit. Returns the connection's id; nil when nothing
    /// runs (a connection adopted before the spawn failed is closed).
    private mutating func startProcess(for screen: ScreenID?, kind: String) -> UInt64? {
        // A copy: `adopt` changes the core while the part spawns.
        let starter = processes
        var adopted: UInt64?
        let started = starter.start(screen: screen, kind: kind, socketPath: configuration.socketPath) { pipe, token, pid in
            let id = adopt(pipe, origin: .spawned(token: token), peerPID: pid).id
            adopted = id
            return id
        }
        switch started {
        case .running(let child, let notice):
            processes.keep(child)
            connections[child.connectionID]?.peerPID = child.pid
            spawnedPeer(child.connectionID, kind: kind, pid: child.pid)
            tell(notice)
            hooks.watchExit(child, kind)
            return child.connectionID
        case .failed(let notice):
            if let adopted { connections[adopted]?.forceClose() }
            if let notice { tell(notice) }
            return nil
        }
    }

    /// A spawned process of `kind` exited (its handle is closed): the delivery restarts, holds or
    /// loses its screen, and a shutdown waiting for it may finish.
    mutating func childExited(_ child: any SpawnedHost, kind: String) {
        loop.assertOnLoop()
        tell(processes.exited(child, kind: kind))
        app.processExited(child.connectionID, abnormally: child.exitedAbnormally)
        performAppActions()
        checkShutdownComplete()
        wakeIfWorkPending()
        armDeadlineTimer()
    }

    /// A piece of a flow's work finished (on the loop's thread, from the inbox).
    mutating func workFinished(_ result: ExternalWorkResult) {
        app.workFinished(result)
        performAppActions()
    }

    // MARK: Looking in

    /// How the app ended, once it did.
    var appOutcome: FlowApp.AppOutcome? { app.outcome }
    /// The name of the app, reported in `Welcome`.
    var appName: String { app.appName }
    /// Dismissals the runtime waits for.
    package var pendingDismissals: Int { app.pendingDismissals }
    /// Work started and not finished (the embedded daemon waits for it).
    package var runningWorkCount: Int { app.requests.runningWorkCount }
    /// Timers started and not fired.
    package var startedTimerCount: Int { app.requests.timers.count }

    /// Broken invariants of the runtime and of its agreement with the delivery (empty when sound).
    package func invariantViolations() -> [String] { app.invariantViolations() }

    /// Closes the journal without committing anything more, as a killed process would leave it
    /// (the embedded daemon's `crash()`).
    package mutating func releaseJournalAfterCrash() {
        app.persistence.close()
    }
}
