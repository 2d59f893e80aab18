import FlowKit
import FlowWire

extension DaemonCore {
    /// Debug-role requests (the state machine already checked the role).
    mutating func dispatchDebug(_ body: Flowd_V1_Envelope.OneOf_Body, seq: UInt64, on connection: Connection) {
        if refusesDebug(body, seq: seq, on: connection) { return }
        switch body {
        case .getStats:
            send(.stats(stats()), to: connection, replyTo: seq)
        case .getTree(let request):
            answerTree(request, seq: seq, on: connection)
        case .subscribe(let subscribe):
            events.subscribe(connection, subscribe)
        case .unsubscribe:
            events.unsubscribe(connection.id)
        case .injectOutput(let inject):
            var output = Flowd_V1_Output()
            output.screenID = inject.screenID
            output.payload = inject.payload
            app.receiveOutput(output, seq: seq, from: connection.id, injectedBy: connection.peerPID)
        case .injectNavigation(let inject):
            app.receiveNavigation(inject.navigation, seq: seq, from: connection.id, injectedBy: connection.peerPID)
        case .terminateFlow(let terminate):
            app.terminateFlow(terminate, seq: seq, from: connection.id, pid: connection.peerPID)
        case .describe:
            send(.appContract(appContract()), to: connection, replyTo: seq)
        case .getHistory(let request):
            answerHistoryQuestion(.init(connection: connection.id, seq: seq, ask: .history(request)))
        case .getMoment(let request):
            answerHistoryQuestion(.init(connection: connection.id, seq: seq, ask: .moment(request)))
        default:
            app.refuse(Flowd_V1_Error(code: .unexpectedMessage, message: "\(body.name) is not a request flowd serves"), seq: seq, to: connection.id)
        }
    }

    /// The parts the debug views read, for this one call.
    var viewed: DebugViews.Sources {
        DebugViews.Sources(appName: app.appName, runtime: app.runtime, delivery: app.delivery, connections: connections, survival: survival,
                           processes: processes, persistence: app.persistence, debug: app.debug, peers: peers,
                           openHandles: loop.openHandleCount)
    }

    /// What `flowctl stats` shows.
    package func stats() -> Flowd_V1_Stats { DebugViews.stats(viewed) }

    /// What `flowctl tree` shows.
    package func tree() -> Flowd_V1_Tree { DebugViews.tree(viewed) }

    /// The app's contract, as `flowctl describe` shows it.
    package func appContract() -> Flowd_V1_AppContract { DebugViews.contract(of: app.app, appName: app.appName) }
}
