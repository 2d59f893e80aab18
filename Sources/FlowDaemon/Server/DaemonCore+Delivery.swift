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
                emitFlowEvent(event)
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
        if case .place(let place) = command, !survival.poolsDecided.contains(place.kind) { decidePool(of: place.kind) }
        let route = route(for: command)
        let serial = delivery.apply(command, route: route, now: loop.now, into: &actions)
        if let serial {
            if listened { emitCommandEvent(command, kind: kind, serial: serial) } else { debug.events.countUnheard() }
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
                guard let connection = connections[host] else { break }
                sendCommand(outgoing, to: connection)
            case .spawn(let screen, let kind):
                spawn(screen, kind: kind)
            case .dismissalCompleted(let screen, let outcome):
                _ = try? feed(.dismissalCompleted(screen, outcome))
            case .screenLost(let screen, let kind, let host):
                logger.notice("screen lost", metadata: ["screen": "\(screen)", "kind": "\(kind)", "connection": "\(host.map(String.init) ?? "none")"])
                let owner = runtime?.owner(of: screen)
                _ = try? feed(.screenLost(screen))
                emitScreenLost(screen, kind: kind, owner: owner, host: host)
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
                survival.spawned[connection: host]?.retire(reason: reason)
                survival.spawned.mustExit(connection: host, now: loop.now)
            case .restarted, .restartGaveUp, .detached, .resumed, .resumeExpired:
                reportSurvival(action)
            case .waitingForHost(let screen, let kind):
                logger.info("screen waits for the next host of its kind", metadata: ["screen": "\(screen)", "kind": "\(kind)"])
                watchHostWait(screen)
            case .spawnPooled, .tookPooled, .stopPooled, .poolSuspended:
                performPool(action)
            }
        }
    }

    /// Sends a screen command to its host as the frame that carries it.
    private mutating func sendCommand(_ outgoing: ScreenDelivery.Outgoing, to connection: Connection) {
        let serial = outgoing.serial
        switch outgoing.command {
        case .place(let place):
            send(.place(Flowd_V1_Place(place, serial: serial)), to: connection)
        case .update(let screen, let state, _):
            // The most frequent command, written from its fields: no protobuf message built.
            sendUpdate(screen, serial: serial, state: state, to: connection)
        case .placementChanged(let screen, let placement, let change, _):
            send(.placementChanged(Flowd_V1_PlacementChanged(screen, placement: placement, change: change, serial: serial)), to: connection)
        case .dismiss(let screen, let animated, let reason):
            send(.dismiss(Flowd_V1_Dismiss(screen, animated: animated, reason: reason, serial: serial)), to: connection)
        }
    }

    private mutating func spawn(_ screen: ScreenID, kind: String) {
        guard let app, case .spawn(let executable, let arguments, let environment, _, _) = app.factory(for: kind).resolved else {
            perform(delivery.spawnFailed(screen))
            return
        }
        do {
            let child = try spawnProcess(screen: screen, kind: kind, executable: executable, arguments: arguments, environment: environment)
            adoptChild(child, screen: screen, kind: kind, executable: executable)
            perform(delivery.spawned(screen, host: child.connectionID, now: loop.now))
        } catch {
            logger.error("cannot spawn a screen", metadata: ["screen": "\(screen)", "kind": "\(kind)", "error": "\(error)"])
            perform(delivery.spawnFailed(screen))
        }
    }

    /// Spawns a screen process (nil `screen`: for the pool of `kind`) whose socket joins as a
    /// connection of this daemon; a connection adopted before the spawn failed is closed.
    mutating func spawnProcess(screen: ScreenID?, kind: String, executable: String, arguments: [String],
                               environment: [String: String]) throws -> any SpawnedHost {
        let spawner = self.spawner
        let socketPath = configuration.socketPath
        var adopted: UInt64?
        do {
            return try spawner.spawn(screen: screen, kind: kind, executable: executable, arguments: arguments, environment: environment,
                                     socketPath: socketPath) { pipe, token, pid in
                let id = adopt(pipe, origin: .spawned(token: token), peerPID: pid).id
                adopted = id
                return id
            }
        } catch {
            if let adopted { connections[adopted]?.forceClose() }
            throw error
        }
    }

    /// A screen host finished its handshake (`resuming` the screens of the dropped host with that id, if set).
    mutating func hostJoined(_ connection: Connection, provides: [String], resuming old: UInt64? = nil) {
        if survival.spawned[connection: connection.id] == nil, let app {
            let known = appKinds
            let unknown = provides.filter { !known.isEmpty && !known.contains($0) }
            if !unknown.isEmpty {
                reportUnknownKinds(unknown, from: connection)
                send(.error(Flowd_V1_Error(
                    code: .unknownKind,
                    message: "app \(app.name) uses none of the kinds \(unknown.joined(separator: ", ")); it uses \(known.sorted().joined(separator: ", "))")),
                    to: connection)
            }
        }
        if let old {
            perform(delivery.resume(old, as: connection.id, provides: provides, now: loop.now))
        } else {
            perform(delivery.hostJoined(connection.id, provides: survival.spawned[connection: connection.id] == nil ? provides : [], now: loop.now))
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
        survival.spawned.mustExit(connection: connection.id, now: loop.now)
        drive()
    }

    /// Ack deadlines that passed.
    mutating func expireAckDeadlines(now: UInt64) {
        perform(delivery.expire(now: now))
        drive()
    }

    /// Reports a command on the event stream, with the serial the delivery gave it.
    private mutating func emitCommandEvent(_ command: ScreenCommand, kind: String, serial: UInt64) {
        let owner = { [runtime] in runtime?.owner(of: command.screen) }
        switch command {
        case .place(let place):
            debug.events.emit(.place, screen: place.screen, flow: place.owner, name: place.kind, serial: serial,
                        placement: debug.events.hasSubscribers ? Flowd_V1_Placement(place.placement, screen: place.screen) : nil,
                        payload: runtime?.eventPayload(state: place.state, contentType: place.contentType, of: place.screen),
                        text: "place \(place.kind) \(place.screen) at \(place.placement)")
        case .update(let screen, let state, let owner):
            debug.events.emit(.update, screen: screen, flow: owner, name: kind, serial: serial,
                      payload: runtime?.eventPayload(state: state, contentType: stateContentType(of: screen), of: screen),
                      text: "update \(kind) \(screen)")
        case .placementChanged(let screen, let placement, let change, let owner):
            debug.events.emit(.placementChanged, screen: screen, flow: owner, name: kind, serial: serial,
                        placement: debug.events.hasSubscribers ? Flowd_V1_Placement(placement, screen: screen) : nil,
                        text: "\(change) \(kind) \(screen) now \(placement)")
        case .dismiss(let screen, let animated, let reason):
            if delivery.screens[screen] == nil {
                debug.events.emit(.dismiss, screen: screen, flow: owner(), name: kind, serial: serial, text: "dismiss \(kind) \(screen) (never shown or host gone)")
            } else {
                debug.events.emit(.dismiss, screen: screen, flow: owner(), name: kind, serial: serial,
                            text: "dismiss \(kind) \(screen)\(animated ? " animated" : "") (\(reason))")
            }
        }
    }
}

extension DaemonCore {
    /// Keeps a spawned process until it exits, then tells the delivery; logs and reports the spawn.
    mutating func adoptChild(_ child: any SpawnedHost, screen: ScreenID?, kind: String, executable: String) {
        connections[child.connectionID]?.peerPID = child.pid
        survival.spawned.adopt(child)
        logger.info(screen == nil ? "spawned a pooled screen process" : "spawned screen process", metadata: [
            "screen": "\(screen.map { "\($0)" } ?? "none (pooled)")", "kind": "\(kind)", "pid": "\(child.pid)", "connection": "\(child.connectionID)",
        ])
        debug.events.emit(.processSpawned, screen: screen, connection: child.connectionID, name: kind,
                  text: "spawned \(executable) pid \(child.pid) for \(screen.map { "\(kind) \($0)" } ?? "the pool of \(kind)")")
        hooks.watchExit(child, kind)
    }

    /// A spawned process of `kind` exited (its handle is closed): the delivery restarts, holds or
    /// loses its screen, and a shutdown waiting for it may finish.
    mutating func childExited(_ child: any SpawnedHost, kind: String) {
        loop.assertOnLoop()
        survival.spawned.exited(child)
        logger.info("screen process exited", metadata: ["pid": "\(child.pid)", "kind": "\(kind)", "how": "\(child.exitDescription)"])
        debug.events.emit(.processExited, screen: child.screen, connection: child.connectionID, name: kind,
                  text: "pid \(child.pid) (\(kind)) exited with \(child.exitDescription)")
        perform(delivery.processExited(child.connectionID, abnormally: child.exitedAbnormally, now: loop.now))
        drive()
        checkShutdownComplete()
        wakeIfWorkPending()
        armDeadlineTimer()
    }

    /// Spawned processes that outstayed their reason to exit: SIGTERM, then SIGKILL.
    mutating func signalOutstayingProcesses(now: UInt64) {
        for (child, signal) in survival.spawned.expire(now: now) {
            logger.warning("screen process outstays its screen; sending \(signal == SIGTERM ? "SIGTERM" : "SIGKILL")", metadata: [
                "pid": "\(child.pid)", "connection": "\(child.connectionID)",
            ])
            child.send(signal)
        }
    }
}
