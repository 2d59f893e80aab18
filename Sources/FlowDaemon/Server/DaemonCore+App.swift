import FlowApp
import FlowKit
import FlowWire

extension DaemonCore {
    /// Creates the runtime and the screen directory and starts the app's root flow.
    package mutating func startApp() {
        loop.assertOnLoop()
        guard let app else { return }
        startPools()
        startRuntime(app)
        if let link = configuration.openLink { openAtStart(link) }
    }

    mutating func appReported(_ outcome: FlowApp.AppOutcome) {
        switch outcome {
        case .output(let output):
            logger.info("app output: \(output)")
            return
        case .finished(let result, let report):
            logger.info("app \(appName) finished with \(result); unwound \(report.outcomes.count) screens")
        case .ended(.terminated) where phase != .running:
            // A stop (a signal, the service manager): nothing went wrong, and the journal is kept.
            logger.info("app \(appName) stopped with flowd\(persistence.journal == nil ? "" : "; its journal is kept for the next start")")
        case .ended(let ending):
            logger.notice("app \(appName) ended: \(ending)")
        }
        recordAppOutcome(outcome)
        // The app is over: nothing is left to restore (a shutdown froze the journal first: kept).
        persistence.finish()
        if configuration.exitWhenAppFinishes {
            requestShutdown(reason: .appFinished, message: "app \(appName) finished")
        } else {
            logger.info("staying up (--stay-up); the window is empty")
        }
    }
}
