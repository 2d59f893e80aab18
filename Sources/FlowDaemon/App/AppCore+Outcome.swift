import FlowApp
import FlowKit
import FlowWire

extension AppCore {
    /// Creates the runtime and starts the app's root flow (restored from the journal first), then
    /// opens the link `--open` gave. The warm pools (`startPools`) are filled before.
    mutating func start() {
        loop.assertOnLoop()
        guard let app else { return }
        startRuntime(app)
        if let link = configuration.openLink { openAtStart(link) }
        sayIfTheHistoryWillGrow()
    }

    /// Says once, as the app starts with a journal, which of its running flows do not handle links
    /// (docs/restore.md, "Long sessions"): while one runs no checkpoint can stand for the app, so the
    /// journal keeps every input and a restart replays them all. `flowctl stats` and `flowd describe`
    /// name them too.
    private func sayIfTheHistoryWillGrow() {
        guard persistence.journal != nil, let flows = runtime?.flowTypesNotHandlingLinks, !flows.isEmpty else { return }
        let names = flows.joined(separator: ", ")
        logger.notice("""
            the journal of \(appName) will keep its whole history, growing with every input (a restart replays \
            all of it): \(names) \(flows.count == 1 ? "does" : "do") not handle links, so no checkpoint of the user's \
            place can stand for \(flows.count == 1 ? "it" : "them"); make each LinkHandling (docs/restore.md, "Long sessions")
            """, metadata: ["flows": "\(names)"])
    }

    mutating func appReported(_ outcome: FlowApp.AppOutcome) {
        switch outcome {
        case .output(let output):
            logger.info("app output: \(output)")
            return
        case .finished(let result, let report):
            logger.info("app \(appName) finished with \(result); unwound \(report.outcomes.count) screen\(report.outcomes.count == 1 ? "" : "s")")
        case .ended(.terminated) where !isRunning:
            // A stop (a signal, the service manager): nothing went wrong, and the journal is kept.
            logger.info("app \(appName) stopped with flowd\(persistence.journal == nil ? "" : "; its journal is kept for the next start")")
        case .ended(.screenLost(let screen)) where persistence.journal != nil:
            // The user did not leave: a host failed under them. The next start restores the place.
            logger.warning("app \(appName) ended: screen \(screen) lost; its journal is kept, so the next start restores where the user was")
        case .ended(let ending):
            logger.notice("app \(appName) ended: \(ending)")
        }
        recordOutcome(outcome)
        // The app is over: nothing is left to restore (a shutdown froze the journal first: kept),
        // unless it ended because a root screen was lost, which is no choice of the user or the flows.
        if case .ended(.screenLost) = outcome {
            persistence.keepForNextStart()
        } else {
            persistence.finish()
        }
        if configuration.exitWhenAppFinishes {
            act(.stop(.appFinished, message: "app \(appName) finished"))
        } else {
            logger.info("staying up (--stay-up); the window is empty")
        }
    }
}

extension AppCore {
    /// The shutdown's unwinding completed (the runtime's `.unwound(.all)`). Draining waits for the
    /// dismissals sent before the shutdown began too (each ends by its ack, its deadline or its host's
    /// loss), so no host is closed before it could acknowledge.
    mutating func flowsUnwound(_ report: DismissalReport) {
        let count = { (outcome: DismissOutcome) in report.outcomes.filter { $0.outcome == outcome }.count }
        logger.info("unwound", metadata: [
            "screens": "\(report.outcomes.count)", "acknowledged": "\(count(.acknowledged))",
            "without_host": "\(count(.hostLost))", "timed_out": "\(count(.timedOut))",
        ])
        act(.flowsUnwound)
    }

    /// A debug client (on `client`, process `pid`) terminates a flow: answered once its UI is gone.
    mutating func terminateFlow(_ request: Flowd_V1_TerminateFlow, seq: UInt64, from client: UInt64, pid: Int32) {
        guard let runtime else {
            refuse(Flowd_V1_Error(code: .unknownFlow, message: "this daemon runs no app, so it has no flows"), seq: seq, to: client)
            return
        }
        let flow = FlowID(rawValue: request.flowID)
        guard flow != .host, let type = runtime.typeName(of: flow) else {
            refuse(Flowd_V1_Error(code: .unknownFlow, message: "cannot terminate \(flow): no such flow is running; see `flowctl tree` for flow ids"),
                   seq: seq, to: client)
            return
        }
        logger.notice("debug client terminates a flow", metadata: ["pid": "\(pid)", "flow": "\(flow)", "type": "\(type)"])
        debug.events.emit(.injected, flow: flow, connection: client, name: type, payload: EventPayloads.terminate(request),
                          text: "debug client pid \(pid) terminates \(type) \(flow)")
        // Terminating a root flow ends the app: the answer says so before the Shutdown that follows.
        let ending = runtime.subFlows(of: .host).contains(flow)
            ? ", the app's root flow: the app ended\(configuration.exitWhenAppFinishes ? " and flowd stops" : "")" : ""
        // Answered once the runtime says the flow's UI is gone (`terminated(_:)`), perhaps inside `feed`.
        debug.awaitUnwinding(of: flow, .init(connection: client, seq: seq, text: "terminated \(type) \(flow)\(ending)"))
        do {
            try feed(.terminate(flow, animated: request.animated))
        } catch {
            _ = debug.takeReply(for: flow)
            refuse(Flowd_V1_Error(code: .unknownFlow, message: "\(error.message); see `flowctl tree` for flow ids"), seq: seq, to: client)
            return
        }
        drive()
    }

    /// A flow a debug client terminated is unwound (the runtime's `.unwound(.flow)`): its answer goes out.
    mutating func terminated(_ flow: FlowID, report: DismissalReport) {
        guard let waiting = debug.takeReply(for: flow) else { return }
        let count = report.outcomes.count
        reply(to: waiting.connection, seq: waiting.seq, "\(waiting.text); \(count) screen\(count == 1 ? "" : "s") unwound")
    }
}
