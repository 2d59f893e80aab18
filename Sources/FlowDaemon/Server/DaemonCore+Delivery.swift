import FlowApp
import FlowKit
import FlowKitWire
import FlowWire
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension DaemonCore {
    /// Applies what the runtime caused, and what that causes in turn (dismissals completed, screens
    /// lost, unwindings and the app's end), until the runtime is quiet. Every entry point that feeds
    /// the runtime or the delivery ends here; the runtime is never called from inside itself.
    mutating func drive() {
        loop.assertOnLoop()
        guard let runtime else { return }
        // The two buffers are reused from one input to the next: no allocation per input.
        var effects = effectBuffer
        effectBuffer = []
        defer { effectBuffer = effects }
        runtime.settle(reusing: &effects) { effect in
            switch effect {
            case .flow(let event):
                if debug.events.hasSubscribers { debug.events.flow(event) } else { debug.events.countUnheard() }
            case .command(let command):
                persistence.observe(command)
                deliver(command)
            case .request(let request):
                startRequest(request)
            case .cancelRequest(let id):
                cancelRequest(id)
            case .unwound(.all, let report):
                flowsUnwound(report)
            case .unwound(.flow(let flow), let report):
                terminated(flow, report: report)
            case .root(let outcome):
                appReported(outcome)
            }
        }
    }

    /// Gives one screen command to the delivery state machine, reports it, and performs what it says.
    mutating func deliver(_ command: ScreenCommand) {
        let listened = debug.events.hasSubscribers
        let kind = listened ? delivery.screens[command.screen]?.kind ?? "" : ""
        var actions = actionBuffer
        actionBuffer = []
        actions.removeAll(keepingCapacity: true)
        if case .place(let place) = command, !processes.hasDecidedPool(of: place.kind) { decidePool(of: place.kind) }
        let route = route(for: command)
        let serial = delivery.apply(command, route: route, now: loop.now, into: &actions)
        if let serial {
            if listened {
                debug.events.command(command, kind: kind, serial: serial, runtime: runtime, contentType: stateContentType(of: command.screen),
                                     delivered: delivery.screens[command.screen] != nil)
            } else {
                debug.events.countUnheard()
            }
        }
        if case .place(let place) = command { watchHostWait(place.screen) }
        perform(actions)
        actionBuffer = actions
    }

    /// The content type of a screen's states (its `Place`'s, kept by the delivery).
    mutating func stateContentType(of screen: ScreenID) -> String {
        delivery.stateContentType(of: screen) ?? WireProtocol.jsonContentType
    }

    /// How a placed screen's host is found: the app's factory for its kind.
    private func route(for command: ScreenCommand) -> ScreenDelivery.Route {
        guard case .place(let place) = command, let app else { return .attached }
        if case .spawn(_, _, _, let restart, _) = app.factory(for: place.kind).resolved { return .spawn(restart) }
        return .attached
    }

    /// Performs the delivery's actions: frames, spawns, retirements, and inputs for the runtime.
    mutating func perform(_ actions: [ScreenDelivery.Action]) {
        for action in actions {
            switch action {
            case .send(let outgoing, let host):
                if let connection = connections[host] { send(outgoing, to: connection) }
            case .spawn(let screen, let kind):
                spawn(screen, kind: kind)
            case .dismissalCompleted(let screen, let outcome):
                _ = try? feed(.dismissalCompleted(screen, outcome))
            case .screenLost(let screen, let kind, let host):
                logger.notice("screen lost", metadata: ["screen": "\(screen)", "kind": "\(kind)", "connection": "\(host.map(String.init) ?? "none")"])
                let owner = runtime?.owner(of: screen)
                _ = try? feed(.screenLost(screen))
                if debug.events.hasSubscribers {
                    debug.events.screenLost(screen, kind: kind, owner: owner, host: host, runtime: runtime)
                } else {
                    debug.events.countUnheard()
                }
            case .ackTimedOut(let screen, let kind, let serial, let host):
                logger.warning("screen did not acknowledge in time; removed by force", metadata: [
                    "screen": "\(screen)", "kind": "\(kind)", "serial": "\(serial)",
                ])
                // A spawned host still in its handshake gets nothing before `Welcome`.
                if let host, let connection = connections[host], connection.agreement != nil {
                    send(.error(Flowd_V1_Error(
                        code: .ackTimeout,
                        message: "screen \(screen.rawValue) did not acknowledge serial \(serial) within \(configuration.ackTimeoutMilliseconds) ms; it was removed",
                        screenID: screen.rawValue, serial: serial)), to: connection)
                }
            case .retire(let host, let reason):
                if let connection = connections[host] {
                    send(.shutdown(.init(reason: .screenDismissed, message: reason)), to: connection)
                    closeGracefully(connection)
                }
                processes.retire(connection: host, reason: reason, now: loop.now)
            case .restarted(let screen, _, _, _), .restartGaveUp(let screen, _, _, _):
                if let notice = survival.report(action, owner: runtime?.owner(of: screen)) { tell(notice) }
            case .detached, .resumed, .resumeExpired:
                if let notice = survival.report(action, owner: nil) { tell(notice) }
            case .waitingForHost(let screen, let kind):
                logger.info("screen waits for the next host of its kind", metadata: ["screen": "\(screen)", "kind": "\(kind)"])
                watchHostWait(screen)
            case .spawnPooled, .tookPooled, .stopPooled, .poolSuspended:
                performPool(action)
            }
        }
    }

    private mutating func spawn(_ screen: ScreenID, kind: String) {
        guard let host = startProcess(for: screen, kind: kind) else { return perform(delivery.spawnFailed(screen)) }
        perform(delivery.spawned(screen, host: host, now: loop.now))
    }

    /// Starts a process of `kind` for `screen` (nil: for its warm pool) whose socket joins as a
    /// connection of this daemon, and watches its exit. Returns the connection's id; nil when nothing
    /// runs (a connection adopted before the spawn failed is closed).
    mutating func startProcess(for screen: ScreenID?, kind: String) -> UInt64? {
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
            tell(notice)
            hooks.watchExit(child, kind)
            return child.connectionID
        case .failed(let notice):
            if let adopted { connections[adopted]?.forceClose() }
            if let notice { tell(notice) }
            return nil
        }
    }

    /// A screen host finished its handshake (`resuming` the screens of the dropped host with that id, if set).
    mutating func hostJoined(_ connection: Connection, provides: [String], resuming old: UInt64? = nil) {
        if processes.spawned[connection: connection.id] == nil, let app {
            let known = appKinds
            let unknown = provides.filter { !known.isEmpty && !known.contains($0) }
            if !unknown.isEmpty {
                tell(debug.contract.unknownKinds(unknown, from: connection.id, label: connection.label))
                send(.error(Flowd_V1_Error(
                    code: .unknownKind,
                    message: "app \(app.name) uses none of the kinds \(unknown.joined(separator: ", ")); it uses \(known.sorted().joined(separator: ", "))")),
                    to: connection)
            }
        }
        if let old {
            perform(delivery.resume(old, as: connection.id, provides: provides, now: loop.now))
        } else {
            perform(delivery.hostJoined(connection.id, provides: processes.spawned[connection: connection.id] == nil ? provides : [], now: loop.now))
            if let member = delivery.pool.members[connection.id] { pooledProcessReady(connection, kind: member.kind) }
        }
        drive()
    }

    /// A connection closed: its screens are lost, held for a restart or a resume, or complete their
    /// dismissal as `hostLost`.
    mutating func hostLeft(_ connection: Connection) {
        survival.watchdog?.forget(connection.id)
        // Once the shutdown began the delivery holds nothing (`holdsScreensOfLostHosts`).
        perform(delivery.hostLost(connection.id, now: loop.now, resumable: connection.mayResume))
        if !delivery.isDetached(connection.id) {
            survival.tokens.retire(connection.id, because: .hostLeft)
        }
        processes.spawned.mustExit(connection: connection.id, now: loop.now)
        drive()
    }

    /// Starts the host-wait clock of a screen just placed (or whose host left), if it waits for an attached host.
    mutating func watchHostWait(_ screen: ScreenID) {
        guard debug.contract.hostWait > 0 else { return }
        debug.contract.placed(screen, waitsForHost: delivery.screens[screen]?.phase == .waitingForHost, now: loop.now)
    }

    /// Ack deadlines that passed.
    mutating func expireAckDeadlines(now: UInt64) {
        perform(delivery.expire(now: now))
        drive()
    }
}

extension DaemonCore {
    /// A spawned process of `kind` exited (its handle is closed): the delivery restarts, holds or
    /// loses its screen, and a shutdown waiting for it may finish.
    mutating func childExited(_ child: any SpawnedHost, kind: String) {
        loop.assertOnLoop()
        tell(processes.exited(child, kind: kind))
        perform(delivery.processExited(child.connectionID, abnormally: child.exitedAbnormally, now: loop.now))
        drive()
        checkShutdownComplete()
        wakeIfWorkPending()
        armDeadlineTimer()
    }
}
