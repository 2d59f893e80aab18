import Dispatch
import FlowApp
import FlowKit

extension AppCore {
    /// Starts the app on a new runtime; with a journal that holds inputs, replays them first and
    /// re-places every screen the user had (docs/restore.md). A journal that does not replay is moved
    /// aside and the app starts fresh. After another version's journal (an upgrade) or one that did not
    /// replay, the fresh journal starts from what was carried (`startFromCarried`) and is restored as
    /// any journal.
    mutating func startRuntime(_ app: FlowApp.App) {
        var runtime = FlowRuntime()
        install(runtime: runtime)
        logger.info("starting app \(app.name)")
        // Not the loop's clock: libuv caches it, and it does not move before the loop first runs.
        let started = DispatchTime.now().uptimeNanoseconds
        var outcome = persistence.restore(app, into: runtime)
        if case .refused(let why, let advice) = outcome {
            // The replay's runtime is dropped (it releases its flows); the app starts anew on a fresh one.
            runtime = FlowRuntime()
            install(runtime: runtime)
            // Its own statement: inside `tell(…)` the call would hold a copy of the core, and so of the
            // old journal, whose lock the fresh journal then finds taken.
            let notice = persistence.startOver(app, why: why, advice: advice, logger: logger)
            tell(notice)
            outcome = .nothing
        }
        var summary: CarriedSummary?
        if case .nothing = outcome, let carried = persistence.takeCarriedPlace() {
            summary = startFromCarried(carried, app: app)
            if summary != nil {
                runtime = FlowRuntime()
                install(runtime: runtime)
                outcome = persistence.restore(app, into: runtime)
            }
        }
        // The deadlines set from here on (the screens re-placed, the timers started again) count
        // from the end of the replay, not from when the loop was made.
        loop.refreshClock()
        switch outcome {
        case .nothing:
            app.start(runtime)
            drive()
        case .restored(let inputs, let screens, let rootOutcome):
            if let summary {
                tell(summary.notice)
                debug.events.emit(.restored, screen: runtime.model.front(), name: summary.place, payload: EventPayloads.link(summary.place),
                                  text: summary.event)
            } else {
                logger.notice("restored the app from its journal", metadata: [
                    "inputs": "\(inputs)", "flows": "\(runtime.liveFlowCount)", "screens": "\(screens.count)",
                    "milliseconds": "\(Self.milliseconds(since: started))",
                ])
                debug.events.emit(.restored, text: "restored \(inputs) journaled inputs: \(runtime.liveFlowCount) flows, \(screens.count) screens to re-place")
            }
            for place in screens { deliver(.place(place)) }
            if let rootOutcome { appReported(rootOutcome) }
            // Timers and work the journal holds no answer for start again.
            startOutstandingRequests()
            // Dismissals the old daemon waited for: their hosts are gone with it.
            for screen in runtime.screensBeingDismissed { _ = try? feed(.dismissalCompleted(screen, .hostLost)) }
            drive()
        case .refused(let why, let advice):
            // What was carried did not restore (a flow that decides differently from the same start):
            // the app starts at its start.
            let notice = persistence.startOver(app, why: why, advice: advice, logger: logger)
            tell(notice)
            let fresh = FlowRuntime()
            install(runtime: fresh)
            app.start(fresh)
            drive()
        }
    }

    /// Milliseconds since `started` (`DispatchTime` nanoseconds), with one decimal.
    private static func milliseconds(since started: UInt64) -> String {
        let tenths = (DispatchTime.now().uptimeNanoseconds - started) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
