import FlowKit
import FlowWire

extension DaemonCore {
    /// Debug-role requests (the state machine already checked the role).
    mutating func dispatchDebug(_ body: Flowd_V1_Envelope.OneOf_Body, seq: UInt64, on connection: Connection) {
        switch body {
        case .getStats:
            send(.stats(stats()), to: connection, replyTo: seq)
        case .getTree:
            send(.tree(tree()), to: connection, replyTo: seq)
        case .subscribe(let subscribe):
            debug.events.subscribe(connection, subscribe)
        case .unsubscribe:
            debug.events.unsubscribe(connection.id)
        case .injectOutput(let inject):
            var output = Flowd_V1_Output()
            output.screenID = inject.screenID
            output.payload = inject.payload
            receiveOutput(output, seq: seq, from: connection, injected: true)
        case .injectNavigation(let inject):
            receiveNavigation(inject.navigation, seq: seq, from: connection, injected: true)
        case .terminateFlow(let terminate):
            terminateFlow(terminate, seq: seq, from: connection)
        case .describe:
            send(.appContract(appContract()), to: connection, replyTo: seq)
        default:
            refuse(Flowd_V1_Error(code: .unexpectedMessage, message: "\(body.name) is not a request flowd serves"), seq: seq, to: connection)
        }
    }

    private mutating func terminateFlow(_ request: Flowd_V1_TerminateFlow, seq: UInt64, from connection: Connection) {
        guard let runtime else {
            refuse(Flowd_V1_Error(code: .unknownFlow, message: "this daemon runs no app, so it has no flows"), seq: seq, to: connection)
            return
        }
        let flow = FlowID(rawValue: request.flowID)
        guard flow != .host, let type = runtime.typeName(of: flow) else {
            refuse(Flowd_V1_Error(code: .unknownFlow, message: "cannot terminate \(flow): no such flow is running; see `flowctl tree` for flow ids"),
                   seq: seq, to: connection)
            return
        }
        logger.notice("debug client terminates a flow", metadata: ["pid": "\(connection.peerPID)", "flow": "\(flow)", "type": "\(type)"])
        debug.events.emit(.injected, flow: flow, connection: connection.id, name: type, payload: EventPayloads.terminate(request),
                    text: "debug client pid \(connection.peerPID) terminates \(type) \(flow)")
        // Terminating a root flow ends the app: the answer says so before the Shutdown that follows.
        let ending = runtime.subFlows(of: .host).contains(flow)
            ? ", the app's root flow: the app ended\(configuration.exitWhenAppFinishes ? " and flowd stops" : "")" : ""
        // Answered once the runtime says the flow's UI is gone (`terminated(_:)`), perhaps inside `feed`.
        debug.awaitUnwinding(of: flow, .init(connection: connection.id, seq: seq, text: "terminated \(type) \(flow)\(ending)"))
        do {
            try feed(.terminate(flow, animated: request.animated))
        } catch {
            _ = debug.takeReply(for: flow)
            refuse(Flowd_V1_Error(code: .unknownFlow, message: "\(error.message); see `flowctl tree` for flow ids"), seq: seq, to: connection)
            return
        }
        drive()
    }

    /// A flow a debug client terminated is unwound (the runtime's `.unwound(.flow)`): its answer goes out.
    mutating func terminated(_ flow: FlowID, report: DismissalReport) {
        guard let waiting = debug.takeReply(for: flow), let connection = connections[waiting.connection] else { return }
        let count = report.outcomes.count
        reply(to: connection, seq: waiting.seq, "\(waiting.text); \(count) screen\(count == 1 ? "" : "s") unwound")
    }

    /// The debug counters: they return to their starting values once
    /// everything a client caused has been unwound.
    package func stats() -> Flowd_V1_Stats {
        var stats = Flowd_V1_Stats()
        stats.flows = UInt64(runtime?.liveFlowCount ?? 0)
        stats.screens = UInt64(runtime?.liveScreenCount ?? 0)
        stats.connections = UInt64(connections.count)
        stats.childProcesses = UInt64(survival.spawned.count)
        stats.openDescriptors = UInt64(max(0, ResourceLimits.openDescriptorCount()))
        stats.libuvHandles = UInt64(loop.openHandleCount)
        stats.pendingAcks = UInt64(delivery.pendingAckCount)
        stats.eventsSent = debug.events.sent
        stats.screenRestarts = survival.counts.screenRestarts
        stats.restartsGivenUp = survival.counts.restartsGivenUp
        stats.hostsResumed = survival.counts.hostsResumed
        stats.resumesExpired = survival.counts.resumesExpired
        stats.hostsHung = survival.counts.hostsHung
        stats.screensHeld = UInt64(delivery.heldScreenCount)
        stats.journaledInputs = UInt64(persistence.journal?.committed ?? 0)
        stats.restoredInputs = UInt64(persistence.restoredInputs)
        stats.journalPending = UInt64(persistence.journal?.pendingCount ?? 0)
        stats.unknownKindsOffered = debug.contract.unknownKindsOffered
        stats.screensWithoutHost = debug.contract.screensWithoutHost
        stats.commandsRefused = debug.contract.commandsRefused
        stats.pooledReady = UInt64(delivery.pool.readyCount)
        stats.pooledStarting = UInt64(delivery.pool.startingCount)
        stats.poolHits = delivery.pool.hits
        stats.poolMisses = delivery.pool.misses
        stats.unchangedUpdates = runtime?.unchangedUpdates ?? 0
        return stats
    }

    /// A snapshot of flows, navigation and connections, for `flowctl tree`.
    package func tree() -> Flowd_V1_Tree {
        var tree = Flowd_V1_Tree()
        tree.app = appName
        tree.stats = stats()
        tree.lastEventSeq = debug.events.lastSeq
        tree.connections = connections.all.map(connectionInfo)
        guard let runtime else { return tree }
        let snapshot = runtime.debugTree()
        if let root = snapshot.wireRootFlow() { tree.rootFlow = root }
        tree.window = snapshot.wireWindow(screen: screenInfo)
        return tree
    }

    private func screenInfo(_ id: ScreenID, _ info: DebugTree.NodeInfo) -> Flowd_V1_ScreenInfo {
        var screen = Flowd_V1_ScreenInfo()
        let delivered = delivery.screens[id]
        screen.kind = info.screenKind ?? delivered?.kind ?? ""
        screen.flowID = info.owner?.rawValue ?? 0
        screen.visible = info.placement?.isVisible ?? false
        if let delivered {
            screen.lastSerial = delivered.serials.lastSent
            screen.ackedSerial = delivered.serials.acked
            screen.dismissing = delivered.isDismissing
            screen.restarts = delivered.restarts
            screen.delivery = delivered.phase.summary
            if let hostID = delivered.host {
                screen.connectionID = hostID
                if let host = connections[hostID] {
                    screen.hostName = host.agreement?.name ?? ""
                    screen.pid = host.peerPID
                }
            }
        }
        return screen
    }

    private func connectionInfo(_ connection: Connection) -> Flowd_V1_ConnectionInfo {
        var info = Flowd_V1_ConnectionInfo()
        info.id = connection.id
        info.pid = connection.peerPID
        info.writeQueueBytes = UInt64(connection.pendingBytes)
        if case .spawned = connection.protocolState.origin { info.spawned = true }
        if let member = delivery.pool.members[connection.id] { info.pooledKind = member.kind }
        if let agreement = connection.agreement {
            info.role = agreement.role == .debug ? "debug" : "screen-host"
            info.name = agreement.name
            info.provides = agreement.provides
            info.screens = UInt32(delivery.hosts[connection.id]?.screens.count ?? 0)
        } else {
            info.role = "handshaking"
        }
        return info
    }
}
