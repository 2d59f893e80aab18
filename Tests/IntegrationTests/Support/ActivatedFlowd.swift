import FlowdTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts flowd the way systemd starts a socket-activated service: `socket` at descriptor 3, `LISTEN_FDS=1`, and
/// `LISTEN_PID` set to flowd's own pid — known only in the child, so a shell sets it and then execs flowd (the pid
/// stays the same). `extraDescriptors` adds more (4, 5...: `descriptors` of `SpawnedProcess`).
func startActivatedFlowd(
    socket: Int32, arguments: [String], environment: [String: String] = [:], listenFDs: String = "1",
    extraDescriptors: [Int32: Int32] = [:]
) throws -> SpawnedProcess {
    var inherited = ProcessInfo.processInfo.environment
    for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES", "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM"] {
        inherited[name] = nil
    }
    inherited["LISTEN_FDS"] = listenFDs
    let flowd = productsDirectory.appendingPathComponent("flowd").path
    return try SpawnedProcess(
        executable: "/bin/sh", arguments: ["-c", "LISTEN_PID=$$ exec \"$0\" \"$@\"", flowd] + arguments,
        environment: inherited.merging(environment) { _, new in new },
        descriptors: extraDescriptors.merging([3: socket]) { _, new in new })
}
