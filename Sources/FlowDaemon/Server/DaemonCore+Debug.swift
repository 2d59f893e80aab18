import FlowKit
import FlowWire

extension DaemonCore {
    /// Debug-role requests (the state machine already checked the role).
    mutating func dispatchDebug(_ body: Flowd_V1_Envelope.OneOf_Body, seq: UInt64, on connection: Connection) {
        switch body {
        case .getStats:
            send(.stats(stats()), to: connection, replyTo: seq)
        case .getTree(let request):
            answerTree(request, seq: seq, on: connection)
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

    /// The parts the debug views read, for this one call.
    private var viewed: DebugViews.Sources {
        DebugViews.Sources(appName: appName, runtime: runtime, delivery: delivery, connections: connections, survival: survival, processes: processes,
                           persistence: persistence, debug: debug, openHandles: loop.openHandleCount)
    }

    /// What `flowctl stats` shows.
    package func stats() -> Flowd_V1_Stats { DebugViews.stats(viewed) }

    /// What `flowctl tree` shows.
    package func tree() -> Flowd_V1_Tree { DebugViews.tree(viewed) }

    /// The app's contract, as `flowctl describe` shows it.
    package func appContract() -> Flowd_V1_AppContract { DebugViews.contract(of: app, appName: appName) }
}
