import FlowKit
import FlowWire

extension DaemonCore {
    /// Debug-role requests (the state machine already checked the role).
    mutating func dispatchDebug(_ body: Flowd_V1_Envelope.OneOf_Body, seq: UInt64, on connection: Connection) {
        if let refusal = hosts.debugRefusal(body, from: connection.id, label: connection.label, now: loop.now, time: loop.wallClock) {
            return send(.error(refusal), to: connection, replyTo: seq)
        }
        switch body {
        case .getStats:
            send(.stats(stats()), to: connection, replyTo: seq)
        case .getTree(let request):
            answerTree(request, seq: seq, on: connection)
        case .subscribe(let subscribe):
            app.subscribe(connection.id, subscribe)
        case .unsubscribe:
            app.unsubscribe(connection.id)
        case .injectOutput(let inject):
            var output = HostOutput()
            output.screenID = inject.screenID
            output.hasPayload = true
            output.contentType = inject.payload.contentType
            output.data = inject.payload.data
            app.receiveOutput(output, seq: seq, from: connection.id, injectedBy: connection.peerPID)
        case .injectNavigation(let inject):
            app.receiveNavigation(inject.navigation, seq: seq, from: connection.id, injectedBy: connection.peerPID)
        case .terminateFlow(let terminate):
            app.terminateFlow(terminate, seq: seq, from: connection.id, pid: connection.peerPID)
        case .describe:
            send(.appContract(appContract()), to: connection, replyTo: seq)
        case .getHistory(let request):
            if app.ask(.init(connection: connection.id, seq: seq, maxFrameSize: connection.maxFrameSize, ask: .history(request))) { loop.wake(hooks.woke) }
        case .getMoment(let request):
            if app.ask(.init(connection: connection.id, seq: seq, maxFrameSize: connection.maxFrameSize, ask: .moment(request))) { loop.wake(hooks.woke) }
        default:
            app.refuse(Flowd_V1_Error(code: .unexpectedMessage, message: "\(body.name) is not a request flowd serves"), seq: seq, to: connection.id)
        }
    }

    /// The parts the debug views read, for this one call.
    var viewed: DebugViews.Sources {
        app.viewSources(connections: connections, hosts: hosts, openHandles: loop.openHandleCount, program: configuration.program)
    }

    /// What `flowctl stats` shows.
    package func stats() -> Flowd_V1_Stats { DebugViews.stats(viewed) }

    /// What `flowctl tree` shows.
    package func tree() -> Flowd_V1_Tree { DebugViews.tree(viewed) }

    /// The app's contract, as `flowctl describe` shows it.
    package func appContract() -> Flowd_V1_AppContract { DebugViews.contract(of: app.app, appName: app.appName) }
}
