import FlowKit

/// The flows' requests for outside data (docs/flows.md, Determinism): the daemon starts each timer on
/// the loop's clock and runs each piece of work off the loop, and feeds the answer back through
/// `feed`, so it is journaled like every input. A restore's replay starts nothing (the journal holds
/// the answers); afterwards the requests still outstanding start again.
extension AppCore {
    /// A flow asked for outside data (a `.request` effect, from `drive()`). A timer is set on the
    /// loop's clock and its wall-clock deadline journaled (`.timerStarted`) — or, restarted after a
    /// restore, set for what is left of it; work runs off the loop. Nothing starts while a restore
    /// replays the journal, once the shutdown began, or twice.
    mutating func startRequest(_ request: ExternalRequest) {
        guard isRunning, runtime != nil, !requests.isStarted(request.id) else { return }
        switch request.kind {
        case .timer(let milliseconds):
            let (wait, journal) = requests.startTimer(request.id, milliseconds: milliseconds, deadline: request.deadline,
                                                      now: loop.now, wall: loop.wallClock)
            if let journal { feedRequestInput(journal) }
            logger.debug("timer started", metadata: ["request": "\(request.id)", "flow": "\(request.owner)", "milliseconds": "\(wait)"])
        case .work(let work):
            guard let inbox = loop.inbox else {
                feedRequestInput(.workFailed(request.id, message: "flowd cannot run work now: its loop takes no results from other threads"))
                return
            }
            let finished = workFinished
            requests.started(request.id, task: loop.runOffLoop { finished(await work.run(), inbox) })
            logger.debug("work started", metadata: ["request": "\(request.id)", "flow": "\(request.owner)"])
        }
    }

    /// A request is no longer wanted (a `.cancelRequest` effect): its timer is removed, its work's
    /// task cancelled and its result dropped.
    mutating func cancelRequest(_ id: RequestID) {
        if requests.drop(id) { logger.debug("request cancelled", metadata: ["request": "\(id)"]) }
    }

    /// After a restore's replay: starts every request the journal holds no answer for — a timer for
    /// what is left of it, work again from the start (it was running when the old daemon died).
    mutating func startOutstandingRequests() {
        guard let runtime else { return }
        for request in runtime.outstandingRequests { startRequest(request) }
    }

    /// Fires the timers whose time came (from the deadline timer).
    mutating func fireRequestTimers(now: UInt64) {
        for id in requests.expire(now: now) where isRunning {
            feedRequestInput(.timerFired(id))
            drive()
        }
    }

    /// A piece of work finished (on the loop's thread, from the inbox): its result is fed and
    /// journaled, unless the request was cancelled or dropped meanwhile.
    mutating func workFinished(_ result: ExternalWorkResult) {
        loop.assertOnLoop()
        guard requests.finished(result.request), let runtime, isRunning else { return }
        feedRequestInput(runtime.input(for: result))
        drive()
    }

    private mutating func feedRequestInput(_ input: FlowInput) {
        do {
            try feed(input)
        } catch {
            // The flow cancelled it from a handler in the same turn, or ended: nothing waits for it.
            logger.debug("answer refused", metadata: ["input": "\(input)", "reason": "\(error.message)"])
        }
    }
}
