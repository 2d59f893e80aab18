import FlowDaemon
import Logging

/// swift-log's bootstrap for the daemon: once per process (swift-log allows no second one), at the
/// level of the first `serve` that runs.
enum DaemonLogging {
    nonisolated(unsafe) private static var done = false

    /// Logs to standard error (in the journal's format under systemd) from `level` up.
    static func bootstrap(level: Logger.Level) {
        guard !done else { return }
        done = true
        LoggingSystem.bootstrap { label in
            var handler = JournalLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
