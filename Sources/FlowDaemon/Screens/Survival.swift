import FlowKit

/// What keeps screens alive when their processes or hosts fail, as one part: the resume tokens of
/// attached hosts, the hang watchdog, the spawned processes and their exit grace, the kinds whose
/// warm pool was decided, and the counts `Stats` reports. The rules that use them are
/// `ScreenDelivery`'s (restarts, resumes, pools) and `DaemonCore+Survival.swift`'s (reports, hangs).
struct Survival {
    /// Resume tokens issued to attached hosts in this run.
    var tokens = ResumeTokens()
    /// Pings hosts with commands unacknowledged and finds hung ones (nil: `hangTimeout` 0).
    var watchdog: HangWatchdog?
    /// Spawned screen processes not reaped yet, and the exit grace of those that must go.
    var spawned: SpawnedProcesses
    /// Kinds whose warm pool size was read from their factory (`DaemonCore+Pool.swift`).
    var poolsDecided: Set<String> = []
    /// Restarts, resumes and hangs so far.
    var counts = SurvivalCounts()

    init(hangTimeout: UInt64, exitGrace: UInt64) {
        watchdog = hangTimeout > 0 ? HangWatchdog(timeout: hangTimeout) : nil
        spawned = SpawnedProcesses(grace: exitGrace)
    }
}
