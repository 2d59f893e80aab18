#if canImport(Glibc)
import Glibc
#endif

/// The screen processes the daemon spawned, from spawn to reaping: by connection and by pid, and the
/// exit grace of each one that must go (its screen retired, its connection closed, the daemon
/// stopping): SIGTERM once the grace passed, then SIGKILL each time it passes again, on the loop's
/// clock (`nextDeadline`, `expire(now:)`), so the embedded daemon drives it like every timer.
struct SpawnedProcesses {
    /// How long a process may outlive its reason to exit before each signal, in milliseconds.
    let grace: UInt64
    /// Live processes by the id of their connection.
    private var byConnection: [UInt64: any SpawnedHost] = [:]
    /// Live processes by pid.
    private var byPID: [Int32: any SpawnedHost] = [:]
    /// When each process that must exit gets its next signal, by pid.
    private var exitDeadlines = TimerQueue<Int32>()
    /// Signals sent to each process that must exit, by pid.
    private var signalsSent: [Int32: Int] = [:]

    init(grace: UInt64) { self.grace = grace }

    /// Processes not reaped yet.
    var count: Int { byPID.count }

    /// Every process not reaped yet.
    var all: Dictionary<Int32, any SpawnedHost>.Values { byPID.values }

    /// The process on connection `id`, if it is a spawned one.
    subscript(connection id: UInt64) -> (any SpawnedHost)? { byConnection[id] }

    /// Keeps a process just spawned.
    mutating func adopt(_ host: any SpawnedHost) {
        byConnection[host.connectionID] = host
        byPID[host.pid] = host
    }

    /// The process on connection `id` must exit (its screen was retired, its connection closed):
    /// its grace starts now, unless it already runs.
    mutating func mustExit(connection id: UInt64, now: UInt64) {
        guard let host = byConnection[id], signalsSent[host.pid] == nil else { return }
        signalsSent[host.pid] = 0
        exitDeadlines.add(host.pid, at: now + grace)
    }

    /// Every process must exit (the daemon is stopping).
    mutating func mustAllExit(now: UInt64) {
        for id in byConnection.keys.sorted() { mustExit(connection: id, now: now) }
    }

    /// A process was reaped: it is forgotten.
    mutating func exited(_ host: any SpawnedHost) {
        byPID[host.pid] = nil
        byConnection[host.connectionID] = nil
        exitDeadlines.remove(host.pid)
        signalsSent[host.pid] = nil
    }

    /// When the next signal is due.
    var nextDeadline: UInt64? { exitDeadlines.next }

    /// The signals due at `now`, in order: each process's first is SIGTERM, later ones SIGKILL.
    mutating func expire(now: UInt64) -> [(host: any SpawnedHost, signal: Int32)] {
        var due: [(host: any SpawnedHost, signal: Int32)] = []
        for pid in exitDeadlines.expired(now: now) {
            guard let host = byPID[pid], let sent = signalsSent[pid] else { continue }
            signalsSent[pid] = sent + 1
            exitDeadlines.add(pid, at: now + grace)
            due.append((host, sent == 0 ? SIGTERM : SIGKILL))
        }
        return due
    }
}
