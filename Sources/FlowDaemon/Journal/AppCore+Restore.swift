import Dispatch
import FlowApp
import FlowKit

extension AppCore {
    /// Starts the app on a new runtime; with a journal that holds inputs, replays them first and
    /// re-places every screen the user had (docs/restore.md). A journal that does not replay is moved
    /// aside and the app starts fresh.
    mutating func startRuntime(_ app: FlowApp.App) {
        let runtime = FlowRuntime()
        install(runtime: runtime)
        logger.info("starting app \(app.name)")
        // Not the loop's clock: libuv caches it, and it does not move before the loop first runs.
        let started = DispatchTime.now().uptimeNanoseconds
        switch persistence.restore(app, into: runtime) {
        case .nothing:
            app.start(runtime)
            drive()
            reopenCarriedPlace()
        case .restored(let inputs, let screens, let rootOutcome):
            logger.notice("restored the app from its journal", metadata: [
                "inputs": "\(inputs)", "flows": "\(runtime.liveFlowCount)", "screens": "\(screens.count)",
                "milliseconds": "\(Self.milliseconds(since: started))",
            ])
            debug.events.emit(.restored, text: "restored \(inputs) journaled inputs: \(runtime.liveFlowCount) flows, \(screens.count) screens to re-place")
            for place in screens { deliver(.place(place)) }
            if let rootOutcome { appReported(rootOutcome) }
            // Timers and work the journal holds no answer for start again.
            startOutstandingRequests()
            // Dismissals the old daemon waited for: their hosts are gone with it.
            for screen in runtime.screensBeingDismissed { _ = try? feed(.dismissalCompleted(screen, .hostLost)) }
            drive()
        case .refused(let why, let advice):
            // The replay's runtime is dropped (it releases its flows); the app starts anew on a fresh one.
            tell(persistence.startOver(app, why: why, advice: advice, logger: logger))
            let fresh = FlowRuntime()
            install(runtime: fresh)
            app.start(fresh)
            drive()
            reopenCarriedPlace()
        }
    }

    /// Milliseconds since `started` (`DispatchTime` nanoseconds), with one decimal.
    private static func milliseconds(since started: UInt64) -> String {
        let tenths = (DispatchTime.now().uptimeNanoseconds - started) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
