import Foundation

/// Waits until process `pid` is stopped (state `T` in `/proc/PID/stat`): a `SIGSTOP` takes effect
/// some time after `kill` returns, and until then the process may still write. False after
/// `timeoutSeconds`, or when the process is gone.
public func waitUntilStopped(_ pid: Int32, timeoutSeconds: Double = 10) -> Bool {
    let deadline = Date().addingTimeInterval(timeoutSeconds)
    while Date() < deadline {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        // "PID (COMM) STATE ...": the state follows the command's closing parenthesis.
        let state = stat[stat.index(after: close)...].drop { $0 == " " }.first
        if state == "T" || state == "t" { return true }
        usleep(1_000)
    }
    return false
}
