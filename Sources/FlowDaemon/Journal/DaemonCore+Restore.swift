import Dispatch
import FlowApp
import FlowKit

extension DaemonCore {
    /// Starts the app on a new runtime; with a journal that holds inputs, replays them first and
    /// re-places every screen the user had (docs/restore.md). A journal that does not replay is moved
    /// aside and the app starts fresh.
    mutating func startRuntime(_ app: App) {
        let runtime = FlowRuntime()
        install(runtime: runtime)
        let inputs: Int
        do {
            inputs = try persistence.journal?.journal.count() ?? 0
        } catch {
            // Damaged where the count reads: not an empty journal to append to.
            restartFresh(app, why: "\(error)", advice: { error.advice(kept: $0, app: app.name) })
            return
        }
        guard let stateJournal = persistence.journal, inputs > 0 else {
            start(app, on: runtime)
            return
        }
        // Not the loop's clock: libuv caches it, and it does not move before the loop first runs.
        let started = DispatchTime.now().uptimeNanoseconds
        logger.info("starting app \(app.name)")
        var replay = JournalReplay()
        var journal = stateJournal
        persistence.use(nil)
        replay.start(app, on: runtime, journal: &journal)
        let outcome = replay.replay(&journal, into: runtime)
        persistence.use(journal)
        switch outcome {
        case .restored(let inputs, let screens):
            persistence.restored(inputs: inputs, keys: replay.appliedKeys)
            logger.notice("restored the app from its journal", metadata: [
                "inputs": "\(inputs)", "flows": "\(runtime.liveFlowCount)", "screens": "\(screens.count)",
                "milliseconds": "\(Self.milliseconds(since: started))",
            ])
            debug.events.emit(.restored, text: "restored \(inputs) journaled inputs: \(runtime.liveFlowCount) flows, \(screens.count) screens to re-place")
            for place in screens { deliver(.place(place)) }
            if let rootOutcome = replay.screens.rootOutcome { appReported(rootOutcome) }
            // Timers and work the journal holds no answer for start again.
            startOutstandingRequests()
            // Dismissals the old daemon waited for: their hosts are gone with it.
            for screen in runtime.screensBeingDismissed { _ = try? feed(.dismissalCompleted(screen, .hostLost)) }
            drive()
        case .diverged(let index, let reason):
            restartFresh(app, why: "the journal does not replay at input \(index) (\(reason))", advice: { _ in
                "the flows decide differently from the same inputs: change the app's version whenever its flows change (docs/flows.md, Determinism)"
            })
        case .unreadable(let index, let error):
            restartFresh(app, why: "\(error) (found at input \(index))", advice: { error.advice(kept: $0, app: app.name) })
        }
    }

    /// Milliseconds since `started` (`DispatchTime` nanoseconds), with one decimal.
    private static func milliseconds(since started: UInt64) -> String {
        let tenths = (DispatchTime.now().uptimeNanoseconds - started) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }

    private mutating func start(_ app: App, on runtime: FlowRuntime) {
        logger.info("starting app \(app.name)")
        app.start(runtime)
        drive()
    }

    /// After a divergence: the journal is moved aside, a fresh one opened and the app started anew.
    /// `why` says what was found, `advice` what to do with the journal kept at the path it is given.
    private mutating func restartFresh(_ app: App, why: String, advice: (String) -> String) {
        tell(persistence.startOver(app, why: why, advice: advice, logger: logger))
        let runtime = FlowRuntime()
        install(runtime: runtime)
        start(app, on: runtime)
    }
}
